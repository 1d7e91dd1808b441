//! What instructors use: which scenario catches which known bug and whether correct
//! solutions of every design pass ([`audit`], with the [`mutants`] and the
//! [`alternatives`]), checking whole labs without running code ([`validation`]), handouts
//! against the lab's data ([`handout`]), and the student edition ([`release`]).

pub mod alternatives;
pub mod audit;
pub mod cargo_files;
mod edition_check;
pub mod edition_lints;
pub mod edition_members;
mod edition_readme;
pub mod handout;
pub mod mutant_checks;
pub mod mutants;
pub mod release;
pub mod validation;
