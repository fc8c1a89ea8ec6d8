/**
 * The `afw` command line. Subcommands arrive with the server/gateway issue.
 */
const [command] = process.argv.slice(2);
process.stderr.write(`afw: '${command ?? ""}' is not available yet; the gateway is being built.\n`);
process.exitCode = 1;
