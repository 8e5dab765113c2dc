// Prints one plain closing line, `tests: N passed, M failed` (plus skipped), after jest's own summary, so any
// tool reading the run's last lines sees the counts in a common format.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const counts = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    const line = `${counts}${skipped ? `, ${skipped} skipped` : ""}`;
    process.stderr.write(`\n${line}\n`);
  }
}
module.exports = SummaryReporter;
