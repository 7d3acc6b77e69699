// One function per subcommand of the `adjoint` program; each registers its flags and callback.
#pragma once
#include <CLI/CLI.hpp>

namespace adjoint::cli {
void add_prepare_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_sample_command(CLI::App& app);
void add_grad_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_merge_command(CLI::App& app);  // lora.cpp
}  // namespace adjoint::cli
