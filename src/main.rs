//! The `docdeck` binary: parse the command line, set up logging, dispatch.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = docdeck::cli::Cli::parse();
    docdeck::cli::init_logging(&cli);
    docdeck::cli::run(cli)
}
