//! Test support shared by both simulators' fast-vs-traced property tests.

use crate::machine::RunReport;
use proptest::prop_assert_eq;
use proptest::test_runner::TestCaseError;

/// The fast run and the traced run of `src` agree on the trap, the totals, the per-function
/// figures, the exit code and the output, and a trapping run's counters end at the trap's
/// cycle.
pub(crate) fn prop_same_run(
    fast: &RunReport,
    traced: &RunReport,
    src: &str,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(&fast.trap, &traced.trap, "{}", src);
    prop_assert_eq!(fast.totals, traced.totals, "{}", src);
    prop_assert_eq!(&fast.functions, &traced.functions, "{}", src);
    prop_assert_eq!(fast.exit_code, traced.exit_code, "{}", src);
    prop_assert_eq!(&fast.output, &traced.output, "{}", src);
    if let Some(t) = &fast.trap {
        prop_assert_eq!(fast.totals.cycles, t.cycle, "{}", src);
    }
    Ok(())
}
