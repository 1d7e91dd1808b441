//! The `grader` command. Everything happens in the library; this only wires the streams.

fn main() -> std::process::ExitCode {
    let cli = grader::cli::parse();
    grader::run(
        cli,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
}
