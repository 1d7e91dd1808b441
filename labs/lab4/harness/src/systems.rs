//! Which mock system plays each target of a plan, and the answers each gives: one place
//! for the harness that builds them and the grader that checks scenarios against them.

use std::sync::Arc;

use fixture_claims::Claims;
use fixture_core_banking::CoreBanking;
use fixture_targets::{Activity, ScriptedTarget, System};
use relay_kit::Code;

/// The mock system for the target named `name`: core banking and claims have theirs; any
/// other name gets the scripted engine alone, which answers with any code.
pub fn system(name: &str, activity: &Activity) -> Arc<dyn System> {
    match name {
        fixture_core_banking::NAME => Arc::new(CoreBanking::new(activity.clone())),
        fixture_claims::NAME => Arc::new(Claims::new(activity.clone())),
        _ => Arc::new(ScriptedTarget::new(name, activity.clone())),
    }
}

/// Every code the target named `name` answers with, and what it means there.
pub fn answers(name: &str) -> &'static [(Code, &'static str)] {
    match name {
        fixture_core_banking::NAME => &fixture_core_banking::ANSWERS,
        fixture_claims::NAME => &fixture_claims::ANSWERS,
        _ => ScriptedTarget::ANY_ANSWER,
    }
}

/// What `code` (as scenarios write it) means to the target named `name`, if it answers
/// with it at all; `None` for a word that is no code.
pub fn meaning(name: &str, code: &str) -> Option<&'static str> {
    let code: Code = code.parse().ok()?;
    fixture_targets::meaning(answers(name), code)
}
