//! The one piece of a harness program that names the code under test: a newtype around
//! the crate's type whose impl of the harness's trait hands each method, unchanged, to the
//! method of the same name ([`under_test!`](crate::under_test)).

/// Declares `struct $name($inner)` and implements the harness trait `$trait` for it by
/// calling, for each method listed, the method of the same name on the wrapped value.
/// Each lab's harness re-exports it, so a harness program (`main/src/main.rs`) reads:
///
/// ```ignore
/// the_labs_harness::under_test! {
///     struct UnderTest(the_student_crate::Service);
///     impl ServiceUnderTest {
///         fn call(&self, request: &Request) -> Answer;
///         fn state(&self, name: &str) -> Option<State>;
///     }
/// }
/// ```
#[macro_export]
macro_rules! under_test {
    (
        struct $name:ident($inner:ty);
        impl $trait:path {
            $(fn $method:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*
        }
    ) => {
        struct $name($inner);

        impl $trait for $name {
            $(
                fn $method(&self $(, $arg: $ty)*) -> $ret {
                    self.0.$method($($arg),*)
                }
            )*
        }
    };
}
