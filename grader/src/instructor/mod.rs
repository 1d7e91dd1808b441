//! What instructors use: which scenario catches which known bug ([`audit`], with the
//! [`mutants`]), checking whole labs without running code ([`validation`]), and the
//! student edition ([`release`]).

pub mod audit;
pub mod cargo_files;
mod edition_check;
pub mod mutant_checks;
pub mod mutants;
pub mod release;
pub mod validation;
