// `adjoint bench` with LoRA (train's --lora-* flags) on a Hugging Face folder of BF16 matrices: the
// step's parts (frozen forward, input-gradient backward, adapters, their optimizer) with the FLOPs
// and bytes of each, and one-line errors for bad LoRA settings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../common/command_test.hpp"
#include "adjoint/llama.hpp"
#include "adjoint/safetensors.hpp"

namespace {

using command_test::Output;
using command_test::TempDir;
using nlohmann::json;

// A small untied Llama (GQA, a 512-token vocabulary) as save_hf_folder writes it, then every tensor
// rewritten as BF16 (its values' upper halves), as a BF16 checkpoint on the Hub is stored.
adjoint::LlamaConfig write_bf16_llama_folder(const std::string& dir) {
  adjoint::LlamaConfig c = adjoint::llama_config_from_name("llama-d2");
  c.vocab_size = 512;
  c.max_seq_len = 64;
  c.tied_head = false;
  adjoint::Llama model(c);
  model.init_random(3);
  model.save_hf_folder(dir, model.params_memory());
  const std::string path = dir + "/model.safetensors";
  json header = {{"__metadata__", {{"format", "pt"}}}};
  std::string data;
  {
    const adjoint::SafetensorsFile file(path);
    for (const auto& [name, view] : file.tensors()) {
      std::vector<float> values(view.elements);
      adjoint::tensor_to_float(view, 0, values.size(), values.data());
      const std::size_t begin = data.size();
      for (float v : values) {
        std::uint32_t bits;
        std::memcpy(&bits, &v, sizeof(bits));
        const std::uint16_t upper = std::uint16_t(bits >> 16);
        data.append(reinterpret_cast<const char*>(&upper), sizeof(upper));
      }
      header[name] = {{"dtype", "BF16"}, {"shape", view.shape}, {"data_offsets", {begin, data.size()}}};
    }
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const std::uint64_t length = text.size();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&length), sizeof(length));
  out << text << data;
  return c;
}

// The JSON record bench prints for its one row.
json bench_record(const std::string& stdout_text) {
  std::istringstream lines(stdout_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("{\"")) return json::parse(line);
  }
  ADD_FAILURE() << "no JSON record in\n" << stdout_text;
  return json::object();
}

// The record's parts by name.
std::map<std::string, json> parts_by_name(const json& record) {
  std::map<std::string, json> parts;
  for (const json& part : record.at("parts")) parts[part.at("part").get<std::string>()] = part;
  return parts;
}

const std::string kBenchLora = " bench -B 2 -T 8 --warmup 0 --iters 1 --lora-rank 2 --lora-targets q,v,down";

TEST(BenchCommand, LoraOnABf16FolderTimesEachPartAgainstItsFloor) {
  TempDir dir;
  const adjoint::LlamaConfig c = write_bf16_llama_folder(dir / "folder");
  const Output bf16 =
      command_test::run_output(command_test::adjoint_bin() + kBenchLora + " --model " + (dir / "folder"), dir);
  ASSERT_EQ(0, bf16.status) << bf16.err;
  EXPECT_NE(bf16.out.find("frozen matrices in bf16"), std::string::npos) << bf16.out;
  EXPECT_NE(bf16.out.find("frozen forward "), std::string::npos) << bf16.out;
  EXPECT_NE(bf16.out.find("| input-gradient backward "), std::string::npos) << bf16.out;
  EXPECT_NE(bf16.out.find("| adapters "), std::string::npos) << bf16.out;
  EXPECT_NE(bf16.out.find("| optimizer "), std::string::npos) << bf16.out;
  const Output fp32 = command_test::run_output(
      command_test::adjoint_bin() + kBenchLora + " --lora-fp32-base --model " + (dir / "folder"), dir);
  ASSERT_EQ(0, fp32.status) << fp32.err;
  EXPECT_EQ(fp32.out.find("frozen matrices in bf16"), std::string::npos) << fp32.out;

  // The parts' FLOPs from the config: the products (every matrix but the embedding, which is
  // looked up) once forward and once for dX, attention once forward and twice backward, the
  // adapters 6·N·r·(in + out) a layer.
  const double N = 2 * 8, C = c.channels, L = c.num_layers, H = adjoint::llama_hidden_size(c), r = 2;
  const double kv = double(c.num_kv_heads) * (C / c.num_heads);
  const double matrices = L * ((C + 2 * kv) * C + C * C + 3 * H * C) + C * c.vocab_size;
  const double attention = L * 2 * 2 * 2 * (8 * 9 / 2.0) * C;
  const double adapters = 6 * N * r * L * ((C + C) + (C + kv) + (H + C));  // q, v, down
  const json record = bench_record(bf16.out);
  std::map<std::string, json> parts = parts_by_name(record);
  EXPECT_DOUBLE_EQ(parts.at("frozen forward").at("flops").get<double>(), 2 * N * matrices + attention);
  EXPECT_DOUBLE_EQ(parts.at("input-gradient backward").at("flops").get<double>(), 2 * N * matrices + 2 * attention);
  EXPECT_DOUBLE_EQ(parts.at("adapters").at("flops").get<double>(), adapters);
  EXPECT_EQ(record.at("lora_rank").get<int>(), 2);
  // Bytes: the adapters' parameters (r·(in + out) a site and layer) read twice and their gradients
  // written; AdamW's 28 bytes a parameter.
  const double adapter_parameters = record.at("parameters").get<double>();
  EXPECT_DOUBLE_EQ(adapter_parameters, r * L * ((C + C) + (C + kv) + (H + C)));
  EXPECT_DOUBLE_EQ(parts.at("adapters").at("bytes").get<double>(), 12 * adapter_parameters);
  EXPECT_DOUBLE_EQ(parts.at("optimizer").at("bytes").get<double>(), 28 * adapter_parameters);
  // The frozen forward reads the matrices at 2 bytes each from a bf16 base, 4 from an fp32 one.
  std::map<std::string, json> fp32_parts = parts_by_name(bench_record(fp32.out));
  for (const char* part : {"frozen forward", "input-gradient backward"}) {
    EXPECT_DOUBLE_EQ(fp32_parts.at(part).at("bytes").get<double>() - parts.at(part).at("bytes").get<double>(),
                     2 * matrices)
        << part;
    EXPECT_DOUBLE_EQ(fp32_parts.at(part).at("flops").get<double>(), parts.at(part).at("flops").get<double>()) << part;
  }
  // Timed directly (the other parts are differences of medians, which a loaded machine can turn
  // negative at one iteration).
  EXPECT_GT(parts.at("adapters").at("ms").get<double>(), 0.0);
}

TEST(BenchCommand, BadLoraSettingsAreOneLineErrors) {
  TempDir dir;
  const std::string bench = command_test::adjoint_bin() + " bench --model llama-d2 -B 1 -T 8 --iters 1 ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--lora-rank 0", "--lora-rank: 0 is not a whole number in [1, 65536]"},
      {"--lora-rank 2 --lora-alpha nan", "--lora-alpha: nan is not a finite number > 0"},
      {"--lora-rank 2 --lora-targets q,wq", "--lora-targets: unknown target 'wq'"},
      {"--lora-rank 2 --lora-targets qkv", "qkv"},
      {"--lora-alpha 4", "need --lora-rank"},
      {"--lora-fp32-base", "need --lora-rank"},
      {"--lora-rank 200 --lora-targets v", "--lora-rank 200 exceeds target v's smaller side"},
  };
  for (const auto& [flags, message] : cases) {
    const Output result = command_test::run_output(bench + flags, dir);
    EXPECT_NE(result.status, 0) << flags;
    EXPECT_NE(result.err.find(message), std::string::npos) << flags << ": " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << flags << ": " << result.err;
    EXPECT_TRUE(result.out.empty()) << flags << ": the probes ran first:\n" << result.out;
  }
}

}  // namespace
