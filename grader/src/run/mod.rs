//! Running one scenario: the plan the lab's harness gets ([`plan`]), and the child
//! process that carries it out ([`runner`]).

pub mod runner;
