//! The methods of [`Plugin`](crate::Plugin) that every lab writes the same way: each
//! hands the step, settings or observation to the function of the lab's own module that
//! holds the rule ([`lab_modules!`]). A lab's `impl Plugin` then says only what is its
//! own: its name, harnesses, words, what the harness does for each step, and how steps
//! move the clock.

/// Inside a lab's `impl Plugin`, the methods that hand each question to the module of the
/// lab's plug-in crate named for it, so that a newcomer finds every rule of a lab in one
/// obvious place. Call it in the module that holds the impl (the plug-in crate's root);
/// the module paths are read there, so these modules must be in scope under these names,
/// with these functions, and nothing else may be called `validate`, `judge`, `words` or
/// `generate` there:
///
/// | module | functions | what they hold |
/// | --- | --- | --- |
/// | `validate` | `settings`, `steps`, `expects_something` | what a scenario must mean |
/// | `judge` | `step`, `snapshot` | the expected against the observed |
/// | `words` | `settings`, `describe`, `expectation`, `stuck_hint` | the lab's words |
/// | `generate` | `draft`, `fill`, `rule_hint` | generated scenarios |
///
/// and the lab's plug-in type implements [`picture::Picture`](crate::picture::Picture)
/// for itself. The macro is all or nothing: it also writes the methods the trait has
/// defaults for (`stuck_hint`, `generate`, `fill`, `rule_hint`, `picture`), so a lab
/// without a generator or a picture, or that wants any of these otherwise, writes the
/// whole impl by hand instead.
#[macro_export]
macro_rules! lab_modules {
    () => {
        fn check_settings(&self, settings: &Self::Settings) -> Vec<(&'static str, String)> {
            validate::settings(settings)
        }

        fn describe_settings(&self, settings: &Self::Settings) -> String {
            words::settings(settings)
        }

        fn check_steps(&self, steps: &[&Self::Step], checker: &mut $crate::Checker<'_>) {
            validate::steps(steps, checker);
        }

        fn expects_something(&self, step: &Self::Step) -> bool {
            validate::expects_something(step)
        }

        fn judge(
            &self,
            step: &Self::Step,
            record: &$crate::StepRecord<Self::Observation>,
        ) -> Option<$crate::Difference> {
            judge::step(step, record)
        }

        fn snapshot(&self, observation: &Self::Observation) -> $crate::Snapshot {
            judge::snapshot(observation)
        }

        fn describe(&self, step: &Self::Step) -> String {
            words::describe(step)
        }

        fn expectation(&self, step: &Self::Step) -> Option<String> {
            words::expectation(step)
        }

        fn stuck_hint(&self, seen: Option<&str>) -> String {
            words::stuck_hint(seen)
        }

        fn generate(
            &self,
            seed: u64,
            defaults: &[$crate::TargetPlan<Self::Settings>],
        ) -> Option<$crate::Draft> {
            Some(generate::draft(seed, defaults))
        }

        fn fill(
            &self,
            step: &$crate::Value,
            record: &$crate::StepRecord<Self::Observation>,
            before: Option<&Self::Observation>,
            last: bool,
        ) -> Vec<$crate::Value> {
            generate::fill(step, record, before, last)
        }

        fn rule_hint(&self, step: &Self::Step, difference: &$crate::Difference) -> Option<String> {
            generate::rule_hint(step, difference)
        }

        fn picture(
            &self,
        ) -> Option<&dyn $crate::picture::Picture<Self::Step, Self::Observation, Self::Settings>> {
            Some(self)
        }
    };
}
