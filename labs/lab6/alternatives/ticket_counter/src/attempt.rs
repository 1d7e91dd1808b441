//! How one attempt ends, and what each ending means: one table, read three ways.

use shipping_kit::{Answer, Cause};

/// How one attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// The dependency answered.
    Answered(Answer),
    /// The budget ran out while waiting for the dependency's answer (the call goes on).
    Timeout,
    /// The admission queue was full.
    NoCapacity,
    /// The attempt waited in the admission queue too long, or until the budget ran out.
    QueueExpired,
    /// The circuit is open.
    CircuitOpen,
}

/// What one attempt tells the breaker about the dependency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observation {
    /// The dependency answered: it works, whatever the answer said.
    Success,
    /// The dependency failed or did not answer in time.
    Failure,
}

/// One row of the table: what the breaker learns, whether to try again, and why no valid
/// answer came.
struct Row {
    observed: Option<Observation>,
    again: bool,
    cause: Option<Cause>,
}

const fn row(observed: Option<Observation>, again: bool, cause: Option<Cause>) -> Row {
    Row {
        observed,
        again,
        cause,
    }
}

fn row_of(attempt: Attempt) -> Row {
    use Observation::{Failure, Success};
    match attempt {
        Attempt::Answered(Answer::Ok(_)) | Attempt::Answered(Answer::NoTariff) => {
            row(Some(Success), false, None)
        }
        Attempt::Answered(Answer::Unavailable) => {
            row(Some(Failure), true, Some(Cause::Unavailable))
        }
        Attempt::Answered(Answer::Refused) => row(Some(Failure), true, Some(Cause::Refused)),
        Attempt::Timeout => row(Some(Failure), false, Some(Cause::Timeout)),
        Attempt::NoCapacity => row(None, false, Some(Cause::NoCapacity)),
        Attempt::QueueExpired => row(None, false, Some(Cause::QueueExpired)),
        Attempt::CircuitOpen => row(None, false, Some(Cause::CircuitOpen)),
    }
}

/// What `attempt` tells the breaker, or `None` when the dependency never saw it.
pub fn observe(attempt: Attempt) -> Option<Observation> {
    row_of(attempt).observed
}

/// Whether another attempt may follow: only after a quick transient failure.
pub fn retryable(attempt: Attempt) -> bool {
    row_of(attempt).again
}

/// Why no valid answer came, or `None` for a result or a business answer.
pub fn cause(attempt: Attempt) -> Option<Cause> {
    row_of(attempt).cause
}
