import { createGatewayServer, exportTraining, loadGatewayConfig, TrainingExportOptionsSchema } from "@afw/server";
import { writeJsonLine } from "../json-lines.js";
import type { CommandIo } from "./io.js";

/** Options of `afw export-training`, as given on the command line. */
export interface ExportTrainingOptions {
  config?: string | undefined;
  tenant?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit?: string | undefined;
}

/** A time option: epoch milliseconds when all digits, else an ISO 8601 string. */
const timeOf = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : value);

/** `afw export-training`: prints the training export of the configured gateway's stores (see `exportTraining` in `@afw/server`) as JSON lines on stdout. */
export async function exportTrainingCommand(options: ExportTrainingOptions, io: CommandIo): Promise<number> {
  const parsed = TrainingExportOptionsSchema.safeParse({
    ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
    ...(options.from === undefined ? {} : { from: timeOf(options.from) }),
    ...(options.to === undefined ? {} : { to: timeOf(options.to) }),
    ...(options.limit === undefined ? {} : { limit: Number(options.limit) }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return io.fail(`export-training: --${issue.path.join(".")}: ${issue.message}`);
  }
  const config = await loadGatewayConfig(options.config, process.env);
  if (!config.redis) io.log("export-training: no redis configured: the in-memory stores of this process hold nothing to export");
  const gateway = await createGatewayServer(config);
  try {
    const examples = await exportTraining(gateway, parsed.data);
    for (const example of examples) await writeJsonLine(io.stdout, example);
    io.log(`export-training: ${examples.length} examples`);
    return 0;
  } finally {
    await gateway.close();
  }
}
