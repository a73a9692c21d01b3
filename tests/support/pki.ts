// A throwaway certificate authority made with openssl at test start, for real TLS on loopback.

async function openssl(dir: string, args: string[]): Promise<void> {
  const output = await new Deno.Command("openssl", {
    args,
    cwd: dir,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  if (!output.success) {
    throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(output.stderr)}`);
  }
}

/** A throwaway CA: its PEM certificate and a way to issue server certificates. */
export interface Pki {
  ca: string;
  issue(name: string, altNames: string): Promise<{ cert: string; key: string }>;
}

/** Makes a CA in `dir` (valid two days). */
export async function makeCa(dir: string): Promise<Pki> {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  // deno-fmt-ignore
  await openssl(dir, [
    "req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
    "-subj", "/CN=sluice throwaway test CA",
    "-addext", "basicConstraints=critical,CA:TRUE",
    "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  return {
    ca: await Deno.readTextFile(`${dir}/ca.pem`),
    async issue(name, altNames) {
      await Deno.writeTextFile(
        `${dir}/${name}.ext`,
        `subjectAltName=${altNames}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
      );
      // deno-fmt-ignore
      await openssl(dir, [
        "req", ...ec, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`,
      ]);
      // deno-fmt-ignore
      await openssl(dir, [
        "x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", `${name}.pem`, "-days", "2", "-extfile", `${name}.ext`,
      ]);
      return {
        cert: await Deno.readTextFile(`${dir}/${name}.pem`),
        key: await Deno.readTextFile(`${dir}/${name}.key`),
      };
    },
  };
}
