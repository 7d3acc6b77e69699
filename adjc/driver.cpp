// adjc: the driver. Reads the command line, parses the user's translation unit with clang (the
// front end, front_end.cpp, finds the gradient requests and builds the output), and writes the
// output and the depfile.
//
//   adjc <input.cpp> -o <output.cpp> [-MF <depfile>] -- <compiler flags>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <unistd.h>

#include "depfile.hpp"
#include "diagnostics.hpp"
#include "front_end.hpp"
#include "pipeline.hpp"

namespace adjc {

namespace {

const char* const usage_line = "usage: adjc <input.cpp> -o <output.cpp> [-MF <depfile>] -- <compiler flags>\n";

int usage(const char* message) {
  std::fprintf(stderr, "adjc: error: %s\n%s", message, usage_line);
  return 2;
}

int help() {
  std::printf("%s"
              "Writes <input.cpp> with each adjoint::gradient(f) request replaced by generated derivative code\n"
              "(docs/adjc.md). The flags after '--' are those the unit is compiled with (-std=c++20, -I, -D).\n"
              "  -o <output.cpp>  the output file (never the input)\n"
              "  -MF <depfile>    also write the files the unit read, as a make dependency file\n"
              "  -h, --help       this text\n"
              "  --list-diagnostics  every message adjc reports, with its stable id, as a Markdown table\n"
              "Seeing inside the pipeline (docs/adjc.md):\n"
              "  --print-passes           the passes, in order, and exit\n"
              "  --print-after=PASS[,PASS]  print each function's IR after these passes (stderr)\n"
              "  --print-after-all        print each function's IR after every pass (stderr)\n"
              "  --verify-each            check the IR's invariants after every pass\n"
              "  --time-passes            wall time per pass, summed over functions (stderr)\n"
              "  --remarks                why values are taped, saves not in bulk, reverse loops not vectorised\n"
              "  --no-fusion              leave consecutive kernel calls unfused (to compare against fused code)\n",
              usage_line);
  return 0;
}

// Whether two paths name the same file (an existing file by identity, otherwise by normalised path).
bool same_file(const std::string& a, const std::string& b) {
  bool equal = false;
  if (!llvm::sys::fs::equivalent(a, b, equal)) return equal;
  llvm::SmallString<256> pa(a), pb(b);
  llvm::sys::fs::make_absolute(pa);
  llvm::sys::fs::make_absolute(pb);
  llvm::sys::path::remove_dots(pa, true);
  llvm::sys::path::remove_dots(pb, true);
  return pa == pb;
}

bool read_file(const std::string& path, std::string& text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

// Writes `text` to `path` through a temporary file, so a failed run leaves no half-written file.
bool write_file(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!(f << text) || !f.flush()) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

// Headers only adjc's parser sees (parse_include/omp.h): installed under <prefix>/share/adjoint
// beside <prefix>/bin/adjc, else in the source tree this adjc was built from.
std::string parse_include_dir(const char* argv0) {
  std::string self = llvm::sys::fs::getMainExecutable(argv0, reinterpret_cast<void*>(&help));
  llvm::SmallString<256> installed(llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(installed, "share", "adjoint", "parse_include");
  return llvm::sys::fs::is_directory(installed) ? installed.str().str() : ADJC_PARSE_INCLUDE_DIR;
}

// What the command line asks for.
struct CommandLine {
  std::string input, output, depfile;
  std::vector<std::string> flags;  // the compiler flags after `--`
  PipelineOptions options;
};

// Reads the command line into `cl`; an exit status when the run ends here (--help, a bad flag).
std::optional<int> parse_command_line(int argc, char** argv, CommandLine& cl) {
#ifndef NDEBUG
  cl.options.verify_each = true;  // Debug builds check the IR after every pass
#endif
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i], error;
    bool pipeline_option = false;
    if (a == "--") break;
    if (a == "-h" || a == "--help") return help();
    if (a == "--list-diagnostics") {
      print_diagnostic_table(stdout);
      return 0;
    }
    if (a == "--print-passes") {
      print_passes(stdout);
      return 0;
    }
    if (!parse_pipeline_option(a, cl.options, pipeline_option, error)) return usage(error.c_str());
    if (pipeline_option) continue;
    if (a == "-o" || a == "-MF") {
      if (i + 1 >= argc) return usage(("missing file name after " + a).c_str());
      (a == "-o" ? cl.output : cl.depfile) = argv[++i];
    } else if (!a.empty() && a[0] == '-') {
      return usage(("unknown option '" + a + "'").c_str());
    } else if (cl.input.empty()) {
      cl.input = a;
    } else {
      return usage("more than one input file");
    }
  }
  if (cl.input.empty()) return usage("no input file");
  if (cl.output.empty()) return usage("no output file (-o)");
  for (const std::string* written : {&cl.output, &cl.depfile})
    if (!written->empty() && same_file(*written, cl.input)) {
      std::fprintf(stderr, "adjc: error: %s '%s' names the input file; choose another output\n",
                   written == &cl.output ? "-o" : "-MF", written->c_str());
      return 2;
    }
  if (i == argc) return usage("missing '--' before the compiler flags");
  for (++i; i < argc; ++i) cl.flags.push_back(argv[i]);
  return std::nullopt;
}

// Stages at most: a derivative of order 8 nested in one more request, and one to spare.
constexpr int kMaxStages = 10;

// Parses `unit_text` as the input with clang and runs the front end on it (one stage); false when
// that failed.
bool run_stage(const CommandLine& cl, const char* argv0, std::string unit_text, PipelineRunner& pipeline, Output& out) {
  clang::tooling::FixedCompilationDatabase db(".", cl.flags);
  clang::tooling::ClangTool tool(db, {cl.input});
  llvm::SmallString<256> absolute_input(cl.input);
  llvm::sys::fs::make_absolute(absolute_input);
  unit_text += kComplexSupport;
  tool.mapVirtualFile(absolute_input, unit_text);
  // Warnings are the compiler's job when it builds adjc's output; adjc reports errors only.
  std::vector<std::string> extra = {"-DADJOINT_ADJC=1", "-resource-dir=" ADJC_CLANG_RESOURCE_DIR, "-w"};
  extra.insert(extra.end(), {"-idirafter", parse_include_dir(argv0)});
  tool.appendArgumentsAdjuster(
      clang::tooling::getInsertArgumentAdjuster(extra, clang::tooling::ArgumentInsertPosition::END));
  return tool.run(front_end_action(out, pipeline).get()) == 0 && out.ok;
}

// Runs the stages (nesting.hpp): each parses the previous one's output until no request is left;
// an exit status when that failed.
std::optional<int> run_front_end(const CommandLine& cl, const char* argv0, Output& out) {
  std::string unit_text;
  if (!llvm::sys::fs::exists(cl.input) || !read_file(cl.input, unit_text)) {
    std::fprintf(stderr, "adjc: error: cannot read '%s'\n", cl.input.c_str());
    return 1;
  }
  PipelineRunner pipeline(cl.options);
  std::vector<std::string> inputs;
  bool ok = true;
  for (int stage = 0; ok; ++stage) {
    if (stage == kMaxStages) {
      std::fprintf(stderr, "adjc: error: requests in '%s' are still nested after %d stages\n", cl.input.c_str(),
                   kMaxStages);
      ok = false;
      break;
    }
    out = Output{};
    ok = run_stage(cl, argv0, unit_text, pipeline, out);
    inputs.insert(inputs.end(), out.inputs.begin(), out.inputs.end());
    if (!ok || out.pending == 0) break;
    unit_text = out.text;
  }
  pipeline.print_times();
  if (!ok) {
    std::fprintf(stderr, "adjc: no output written for '%s'\n", cl.input.c_str());
    return 1;
  }
  // Every file any stage read, once, in the order first read.
  std::set<std::string> seen;
  out.inputs.clear();
  for (const std::string& f : inputs)
    if (seen.insert(f).second) out.inputs.push_back(f);
  return std::nullopt;
}

// Writes the output and, when asked, the depfile.
int write_outputs(const CommandLine& cl, const Output& out) {
  if (!write_file(cl.output, out.text)) {
    std::fprintf(stderr, "adjc: error: cannot write '%s'\n", cl.output.c_str());
    return 1;
  }
  if (cl.depfile.empty()) return 0;
  std::string deps = depfile_escape(cl.output) + ":";
  for (auto& f : out.inputs) deps += " \\\n  " + depfile_escape(f);
  if (!write_file(cl.depfile, deps + "\n")) {
    std::fprintf(stderr, "adjc: error: cannot write '%s'\n", cl.depfile.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace adjc

int main(int argc, char** argv) {
  adjc::CommandLine cl;
  if (std::optional<int> status = adjc::parse_command_line(argc, argv, cl)) return *status;
  adjc::Output out;
  if (std::optional<int> status = adjc::run_front_end(cl, argv[0], out)) return *status;
  return adjc::write_outputs(cl, out);
}
