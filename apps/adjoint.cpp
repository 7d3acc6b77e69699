// The `adjoint` command. Errors reach the user as one line on stderr and a non-zero exit.
#include <cstdio>
#include <exception>
#include <string>

#include "adjoint/distributed.hpp"
#include "commands.hpp"
#include "thread_waits.hpp"

int main(int argc, char** argv) {
  // Before any thread starts: OpenMP's waits are settled when the program is loaded.
  adjoint::cli::reexecute_with_thread_wait_settings(argv);
  CLI::App app{"Adjoint: GPT-2 training in C++ with compile-time generated backpropagation"};
  app.require_subcommand(1);
  // Flag errors, like every other error, are one line.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "adjoint: error: " + std::string(e.what()) + " (see --help)\n";
  });
  adjoint::cli::add_prepare_command(app);
  adjoint::cli::add_train_command(app);
  adjoint::cli::add_sample_command(app);
  adjoint::cli::add_grad_command(app);
  adjoint::cli::add_bench_command(app);
  adjoint::cli::add_convert_command(app);
  adjoint::cli::add_merge_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const adjoint::ReportedByRankZero&) {
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "adjoint: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
