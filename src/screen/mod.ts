/**
 * The tool-poisoning screen: findings over every model-visible string of a tool definition.
 *
 * @module
 */
export { MAX_FINDINGS_PER_CODE, screenTool, screenTools } from "./screen.ts";
export { MAX_DECODED } from "./hidden.ts";
export type {
  ExfiltrationFinding,
  HiddenFinding,
  MarkupFinding,
  ScreenableTool,
  ScreenClass,
  ScreenCode,
  ScreenCodeOf,
  ScreenContext,
  ScreenFinding,
  ScreenFindingBase,
  ShadowingFinding,
} from "./findings.ts";
