//! How every harness program starts: tied to the grader that started it, then its plan
//! read whole from standard input, before any code under test runs.

use crate::{PROTOCOL_VERSION, Plan};
use serde::de::DeserializeOwned;
use std::io::Read;

/// The variable through which a grader that starts a harness directly (not inside a
/// sandbox) names itself: the harness ends at once if its parent is already gone.
pub const PARENT_VAR: &str = "GRADER_PARENT_PID";

/// Ties this process to the grader that started it, then reads and checks the plan: the
/// protocol version, and that the results file it names can be written is the caller's.
///
/// A harness that the grader started directly is killed when the grader's thread that
/// started it ends, however it ends (`PR_SET_PDEATHSIG`), since nothing else would stop
/// it: it runs in a process group of its own, where Ctrl-C does not reach. A sandboxed
/// harness gets the same from the sandbox too.
pub fn read_plan<S: DeserializeOwned, A: DeserializeOwned>() -> Result<Plan<S, A>, String> {
    tie_to_parent();
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read the plan from standard input: {e}"))?;
    let plan: Plan<S, A> = serde_json::from_str(&input)
        .map_err(|e| format!("the plan on standard input is not valid: {e}"))?;
    if plan.protocol != PROTOCOL_VERSION {
        return Err(format!(
            "plan protocol {} but this harness speaks {PROTOCOL_VERSION}; rebuild it",
            plan.protocol
        ));
    }
    Ok(plan)
}

#[allow(unsafe_code)]
fn tie_to_parent() {
    // SAFETY: prctl(2) with PR_SET_PDEATHSIG takes plain integers; getppid(2) takes none.
    // Neither touches memory of ours.
    let parent = unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        libc::getppid()
    };
    // A grader gone before the line above left this process to another parent: the
    // signal will never come, so leave now.
    let expected = std::env::var(PARENT_VAR)
        .ok()
        .and_then(|v| v.parse::<libc::pid_t>().ok());
    if expected.is_some_and(|pid| pid != parent) {
        #[allow(clippy::disallowed_methods)]
        std::process::exit(2);
    }
}
