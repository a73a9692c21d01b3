import { startHttpServer } from "../../fixtures/read_server_http.ts";
const s = await startHttpServer();
console.log(s.url.port);
await new Promise(() => {});
