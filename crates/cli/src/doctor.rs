//! `switchyard doctor`: checks what a working setup needs and says how to fix what is not.

use switchyard_runtime::Overrides;

use crate::output::{Failure, Outcome, Printer};

pub async fn run(_printer: &Printer, _overrides: Overrides) -> Result<Outcome, Failure> {
    Err(Failure::environment("doctor is not built yet"))
}
