//! Grading a folder of submissions into a gradebook.
