// adjc++: a compiler that runs adjc first. `adjc++ [compiler flags] -c f.cpp -o f.o` runs adjc on
// each C++ source that requests derivatives and compiles adjc's output in its place with the real
// compiler (g++, or $ADJC_CXX); everything else (links, C sources, sources without a request,
// `-M` runs) goes to the real compiler unchanged. `CXX=adjc++ cmake ..` builds a project so.
//
// adjc's output starts with `#line 1 "<source>"`, so diagnostics and debuggers name the user's
// file; dependency files written by -MD/-MMD name the user's source in place of adjc's output.
// Plain C++ and POSIX only: the wrapper starts fast and needs no LLVM.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "depfile.hpp"

extern char** environ;

namespace {

using Args = std::vector<std::string>;

void fail(const std::string& message) { std::fprintf(stderr, "adjc++: error: %s\n", message.c_str()); }

bool read_file(const std::string& path, std::string& text) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !f.bad();
}

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string without_extension(const std::string& path) {
  size_t dot = path.rfind('.'), slash = path.rfind('/');
  return dot == std::string::npos || (slash != std::string::npos && dot < slash) ? path : path.substr(0, dot);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// The folder this program was started from (its real path), to find adjc and the headers beside it.
std::string own_folder() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  buf[n] = '\0';
  return folder_of(buf);
}

// Runs `args` (searched on PATH) and returns its exit status; 127 when it cannot start.
int run(const Args& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid;
  if (int err = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); err != 0) {
    fail("cannot run '" + args[0] + "': " + std::strerror(err));
    return 127;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Options whose value is the next argument (when not attached).
bool takes_value(const std::string& a) {
  static const char* const options[] = {
      "-o",         "-I",  "-D",        "-U",      "-include",  "-imacros",  "-isystem",    "-iquote",
      "-idirafter", "-MF", "-MT",       "-MQ",     "-x",        "-Xlinker",  "-Xassembler", "-Xpreprocessor",
      "-L",         "-l",  "-isysroot", "-target", "--sysroot", "-aux-info", "-Xclang",     "-T",
      "-u",         "-z"};
  for (const char* o : options)
    if (a == o) return true;
  return false;
}

// Flags adjc parses the unit with: they decide what the unit's code is (headers, macros, language).
bool for_adjc(const std::string& a) {
  for (const char* prefix : {"-I", "-D", "-U", "-std=", "-isystem", "-iquote", "-idirafter", "-include", "-imacros",
                             "-stdlib=", "-nostdinc"})
    if (a.rfind(prefix, 0) == 0) return true;
  return a == "-fopenmp";
}

// A `.c` source is C++ to adjc++ as to clang++ (which reads it so in C++ mode): a C file that requests
// derivatives is C++ already (Clad's header is). Its adjc output is named `.cpp` for the compiler.
bool is_c_named(const std::string& a) { return a.size() > 2 && a.compare(a.size() - 2, 2, ".c") == 0; }

bool is_cxx_source(const std::string& a) {
  if (is_c_named(a)) return true;
  for (const char* ext : {".cpp", ".cc", ".cxx", ".c++", ".C", ".cp", ".CPP"}) {
    size_t n = std::strlen(ext);
    if (a.size() > n && a.compare(a.size() - n, n, ext) == 0) return true;
  }
  return false;
}

// Cheap test whether a unit may request derivatives: it names one of the headers or a request.
bool requests_derivatives(const std::string& path) {
  std::string text;
  if (!read_file(path, text)) return false;
  for (const char* mark : {"adjoint/ad.hpp", "clad/Differentiator/Differentiator.h", "adjoint::gradient",
                           "clad::gradient", "clad::differentiate", "clad::hessian", "clad::jacobian"})
    if (text.find(mark) != std::string::npos) return true;
  return false;
}

// What one compiler command line holds, as far as the wrapper cares.
struct CommandLine {
  Args args;                  // the command without the program name
  std::vector<size_t> units;  // indices in args of C++ sources that request derivatives
  Args adjc_flags;            // the flags adjc parses with
  std::string output, depfile;
  bool dependencies_only = false, writes_depfile = false;
  bool language_given = false;  // -x: the wrapper leaves the command alone
};

CommandLine parse(int argc, char** argv) {
  CommandLine cl;
  for (int i = 1; i < argc; ++i) cl.args.push_back(argv[i]);
  for (size_t i = 0; i < cl.args.size(); ++i) {
    const std::string& a = cl.args[i];
    std::string value = takes_value(a) && i + 1 < cl.args.size() ? cl.args[i + 1] : "";
    if (a == "-M" || a == "-MM") cl.dependencies_only = true;
    else if (a == "-MD" || a == "-MMD") cl.writes_depfile = true;
    else if (a.rfind("-o", 0) == 0) cl.output = a == "-o" ? value : a.substr(2);
    else if (a.rfind("-MF", 0) == 0) cl.depfile = a == "-MF" ? value : a.substr(3);
    else if (a.rfind("-x", 0) == 0) cl.language_given = true;
    if (for_adjc(a)) {
      cl.adjc_flags.push_back(a);
      if (takes_value(a) && !value.empty()) cl.adjc_flags.push_back(value);
    }
    if (takes_value(a)) {
      ++i;
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    if (is_cxx_source(a) && requests_derivatives(a)) cl.units.push_back(i);
  }
  return cl;
}

// Replaces each occurrence of `from` by `to` in the file at `path`.
bool replace_in_file(const std::string& path, const std::string& from, const std::string& to) {
  std::string text;
  if (!read_file(path, text)) return false;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  return static_cast<bool>(f << text);
}

// A folder of its own for adjc's outputs, removed when the wrapper ends. Each output is in a
// subfolder of its own under its source's name, so that what the compiler names after its input
// (`f.o`, `f.d` when the command names no output) is named after the user's source.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/adjc++.XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data())) path_ = buf.data();
  }
  ~ScratchFolder() {
    if (path_.empty()) return;
    for (const std::string& f : files_) {
      std::remove(f.c_str());
      ::rmdir(folder_of(f).c_str());
    }
    ::rmdir(path_.c_str());
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  bool ok() const { return !path_.empty(); }
  // A path for a file named `name`; "" when its subfolder cannot be made.
  std::string file(const std::string& name) {
    std::string folder = path_ + "/" + std::to_string(files_.size());
    if (::mkdir(folder.c_str(), 0700) != 0) return "";
    files_.push_back(folder + "/" + name);
    return files_.back();
  }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

// The headers adjc++ was installed with (<prefix>/include beside <prefix>/bin), else the source
// tree's (a build tree's adjc++).
std::string header_folder(const std::string& own) {
  std::string installed = folder_of(own) + "/include";
  if (exists(installed + "/adjoint/ad.hpp")) return installed;
  return ADJC_SOURCE_INCLUDE_DIR;
}

// Runs adjc on each unit that requests derivatives and puts its output in the unit's place in the
// command (with the unit's folder searched for its quoted includes). Returns adjc's failing status.
int differentiate_units(CommandLine& cl, ScratchFolder& scratch, const std::string& own, Args& replaced) {
  const char* adjc_env = std::getenv("ADJC");
  const std::string adjc = adjc_env && *adjc_env ? adjc_env : own + "/adjc";
  Args extra;
  for (size_t index : cl.units) {
    const std::string source = cl.args[index];
    const std::string output = scratch.file(base_of(source) + (is_c_named(source) ? "pp" : ""));
    if (output.empty()) {
      fail(std::string("cannot create a temporary folder: ") + std::strerror(errno));
      return 1;
    }
    Args command = {adjc, source, "-o", output, "--"};
    if (is_c_named(source)) command.push_back("-xc++");
    command.insert(command.end(), cl.adjc_flags.begin(), cl.adjc_flags.end());
    command.insert(command.end(), {"-idirafter", header_folder(own)});
    if (int status = run(command); status != 0) {
      std::fprintf(stderr, "adjc++: adjc failed on '%s'\n", source.c_str());
      return status;
    }
    cl.args[index] = output;
    replaced.push_back(source);
    replaced.push_back(output);
    extra.insert(extra.end(), {"-iquote", folder_of(source)});
  }
  extra.insert(extra.end(), {"-idirafter", header_folder(own)});
  cl.args.insert(cl.args.end(), extra.begin(), extra.end());
  return 0;
}

// The dependency file the compiler writes for `source` (-MD, -MMD): -MF's, else named after the
// output, else after the source.
std::string depfile_of(const CommandLine& cl, const std::string& source) {
  if (!cl.depfile.empty()) return cl.depfile;
  return without_extension(cl.output.empty() ? base_of(source) : cl.output) + ".d";
}

}  // namespace

int main(int argc, char** argv) {
  const char* cxx_env = std::getenv("ADJC_CXX");
  const std::string cxx = cxx_env && *cxx_env ? cxx_env : "g++";
  CommandLine cl = parse(argc, argv);
  Args command = {cxx};
  if (cl.units.empty() || cl.dependencies_only || cl.language_given) {
    command.insert(command.end(), cl.args.begin(), cl.args.end());
    return run(command);
  }
  ScratchFolder scratch;
  if (!scratch.ok()) {
    fail(std::string("cannot create a temporary folder: ") + std::strerror(errno));
    return 1;
  }
  const std::string own = own_folder();
  Args replaced;  // pairs: the user's source, adjc's output in its place
  if (int status = differentiate_units(cl, scratch, own, replaced); status != 0) return status;
  command.insert(command.end(), cl.args.begin(), cl.args.end());
  int status = run(command);
  if (status == 0 && cl.writes_depfile)
    for (size_t i = 0; i < replaced.size(); i += 2) {
      const std::string depfile = depfile_of(cl, replaced[i]);
      if (!replace_in_file(depfile, adjc::depfile_escape(replaced[i + 1]), adjc::depfile_escape(replaced[i]))) {
        fail("cannot rewrite the dependency file '" + depfile + "'");
        return 1;
      }
    }
  return status;
}
