//! The `docdeck` binary: parse the command line, set up logging, dispatch.

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = docdeck::cli::parse();
    docdeck::cli::init_logging(&cli);
    docdeck::cli::run(cli)
}
