// CUDA front ends: runs nvcc or clang++ (no shell: posix_spawn) in a private temporary directory
// and turns their diagnostics into CompileError.
#include "compiler/frontend.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>

extern char** environ;

namespace tsm::compiler {
namespace {

namespace fs = std::filesystem;

/// The PTX target both front ends compile for: compute_75 is the oldest nvcc 13 accepts.
constexpr const char* kNvccArch = "-arch=compute_75";
constexpr const char* kClangArch = "--cuda-gpu-arch=sm_75";

bool is_executable_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::optional<std::string> search_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view rest = path;
  while (true) {
    size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / name;
    if (is_executable_file(candidate)) return candidate.string();
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

/// A private directory (mode 0700) removed with everything in it when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tsm-frontend-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error(
          fmt::format("cannot create a temporary directory {}: {}", pattern, std::strerror(errno)));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// One argument as a POSIX shell would need it, so that `command` can be pasted into a shell.
std::string shell_quote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@%") == std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string join_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const auto& a : argv) {
    if (!command.empty()) command += ' ';
    command += shell_quote(a);
  }
  return command;
}

struct RunResult {
  int exit_status = 0;  ///< exit code, or 128 + signal
  std::string stderr_text;
};

/// Runs argv[0] (an absolute path) with stdin from /dev/null and stdout/stderr captured in dir.
RunResult run(const std::vector<std::string>& argv, const fs::path& dir) {
  const std::string out_path = (dir / "stdout.txt").string();
  const std::string err_path = (dir / "stderr.txt").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw std::runtime_error(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
  }
  RunResult r;
  r.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // Both compilers print their diagnostics on stderr; nvcc sends its host preprocessor's there too.
  r.stderr_text = read_file(err_path) + read_file(out_path);
  return r;
}

/// The first error in a compiler's diagnostics, as a "FILE:LINE:COL: error: ..." headline.
struct FirstError {
  std::string headline;
  std::string file;
  int line = 0;
  int column = 0;
};

std::optional<FirstError> find_first_error(const std::string& diagnostics) {
  // clang, and gcc (nvcc's preprocessor): "FILE:LINE:COL: error: ..." or "... fatal error: ...".
  static const std::regex gnu(R"(^(.+?):(\d+):(\d+): (?:fatal )?error: .*$)");
  // nvcc's EDG front end: "FILE(LINE): error: ..." (or "catastrophic error", "error #N-D"),
  // then the source line and a caret line, both indented by two spaces.
  static const std::regex edg(R"(^(.+?)\((\d+)\): (?:catastrophic )?error(?: #\S+)?: (.*)$)");
  std::vector<std::string> lines;
  std::istringstream in(diagnostics);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, gnu)) {
      return FirstError{lines[i], m[1], std::stoi(m[2]), std::stoi(m[3])};
    }
    if (std::regex_match(lines[i], m, edg)) {
      FirstError e{"", m[1], std::stoi(m[2]), 1};
      for (size_t j = i + 1; j < lines.size() && j <= i + 2; ++j) {
        size_t caret = lines[j].find('^');
        if (caret != std::string::npos && lines[j].find_first_not_of(' ') == caret && caret >= 2) {
          e.column = static_cast<int>(caret) - 1;  // two spaces of indentation, 1-based
          break;
        }
      }
      e.headline = fmt::format("{}:{}:{}: error: {}", e.file, e.line, e.column, m[3].str());
      return e;
    }
  }
  return std::nullopt;
}

std::string what_text(const std::string& headline, const std::string& diagnostics,
                      const std::string& command) {
  std::string body = diagnostics;
  if (body.compare(0, headline.size(), headline) == 0) body.erase(0, headline.size());
  while (!body.empty() && (body.front() == '\n')) body.erase(0, 1);
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
  std::string text = headline;
  if (!body.empty()) text += "\n" + body;
  if (!command.empty()) text += "\n(command: " + command + ")";
  return text;
}

/// The source as an argument: a name starting with '-' must not read as an option.
std::string source_argument(const std::string& cu_file) {
  return !cu_file.empty() && cu_file[0] == '-' ? "./" + cu_file : cu_file;
}

std::vector<std::string> common_flags(const FrontendOptions& options) {
  std::vector<std::string> flags;
  for (const auto& d : options.include_dirs) flags.push_back("-I" + d);
  for (const auto& d : options.defines) flags.push_back("-D" + d);
  return flags;
}

std::vector<std::string> nvcc_command(const std::string& nvcc, const std::string& cu_file,
                                      const fs::path& out, const FrontendOptions& options) {
  std::vector<std::string> argv = {nvcc, "-ptx", kNvccArch, "-o", out.string()};
  for (auto& f : common_flags(options)) argv.push_back(std::move(f));
  argv.push_back(source_argument(cu_file));
  return argv;
}

std::vector<std::string> clang_command(const std::string& clang, const std::string& cu_file,
                                       const fs::path& out, const fs::path& empty_cuda,
                                       const FrontendOptions& options) {
  // -std=c++17: nvcc 13's default dialect, so that kernels compile the same with both.
  const std::string header = (fs::path(cuda_include_dir()) / "tsm_cuda.h").string();
  // include/unsupported/: stubs of the CUDA headers of what TeslaSM does not support (half
  // precision, cooperative groups), searched before the system's directories, where a CUDA SDK's
  // own headers may lie (/usr/local/include) and fail on tsm_cuda.h's definitions instead.
  const std::string stubs = (fs::path(cuda_include_dir()) / "unsupported").string();
  // clang-format off
  std::vector<std::string> argv = {
      clang, "-x", "cuda", "--cuda-device-only", kClangArch, "--cuda-path=" + empty_cuda.string(),
      "-nocudainc", "-nocudalib", "-std=c++17", "-O2", "-S", "-o", out.string(), "-include", header,
      "-isystem", stubs};
  // clang-format on
  for (auto& f : common_flags(options)) argv.push_back(std::move(f));
  argv.push_back(source_argument(cu_file));
  return argv;
}

/// Runs the chosen compiler in a private temporary directory; throws CompileError on failure.
PtxOutput run_front_end(const std::string& cu_file, Frontend used, const std::string& compiler,
                        const FrontendOptions& options) {
  TempDir tmp;
  const fs::path out = tmp.path() / "kernel.ptx";
  std::vector<std::string> argv;
  if (used == Frontend::Nvcc) {
    argv = nvcc_command(compiler, cu_file, out, options);
  } else {
    const fs::path empty_cuda = tmp.path() / "no-cuda-sdk";
    fs::create_directory(empty_cuda);
    argv = clang_command(compiler, cu_file, out, empty_cuda, options);
  }
  const std::string command = join_command(argv);
  RunResult r = run(argv, tmp.path());
  if (r.exit_status != 0 || !fs::exists(out)) {
    if (auto e = find_first_error(r.stderr_text))
      throw CompileError(e->headline, e->file, e->line, e->column, r.stderr_text, command);
    std::string first = r.stderr_text.substr(0, r.stderr_text.find('\n'));
    if (first.empty()) first = fmt::format("{} exited with status {}", argv[0], r.exit_status);
    throw CompileError(fmt::format("{}: error: {}", cu_file, first), cu_file, 0, 0, r.stderr_text,
                       command);
  }
  return PtxOutput{read_file(out), used, command, r.stderr_text};
}

}  // namespace

const char* to_string(Frontend frontend) {
  switch (frontend) {
    case Frontend::Auto:
      return "auto";
    case Frontend::Nvcc:
      return "nvcc";
    case Frontend::Clang:
      return "clang";
  }
  return "?";
}

CompileError::CompileError(std::string headline_, std::string file_, int line_, int column_,
                           std::string diagnostics_, std::string command_)
    : std::runtime_error(what_text(headline_, diagnostics_, command_)),
      headline(std::move(headline_)),
      file(std::move(file_)),
      line(line_),
      column(column_),
      diagnostics(std::move(diagnostics_)),
      command(std::move(command_)) {}

FrontendNotFound::FrontendNotFound(const std::string& file, const std::string& message)
    : CompileError(fmt::format("{}: error: {}", file, message), file, 0, 0, "", "") {}

std::optional<std::string> find_nvcc() {
  if (auto p = search_path("nvcc")) return p;
  if (is_executable_file("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return std::nullopt;
}

std::optional<std::string> find_clang() {
  if (auto p = search_path("clang++")) return p;
  return search_path("clang++-14");
}

std::string cuda_include_dir() { return TSM_CUDA_INCLUDE_DIR; }

PtxOutput cuda_to_ptx(const std::string& cu_file, const FrontendOptions& options) {
  // A missing or unreadable source is reported here: the compilers' own messages name no line.
  struct stat st {};
  if (::stat(cu_file.c_str(), &st) != 0 || ::access(cu_file.c_str(), R_OK) != 0) {
    std::string reason = std::strerror(errno);
    throw CompileError(
        fmt::format("{}:1:1: error: cannot read CUDA source file: {}", cu_file, reason), cu_file, 1,
        1, "", "");
  }
  if (S_ISDIR(st.st_mode))
    throw CompileError(
        fmt::format("{}:1:1: error: cannot read CUDA source file: it is a directory", cu_file),
        cu_file, 1, 1, "", "");
  Frontend used = options.frontend;
  std::optional<std::string> compiler;
  if (used == Frontend::Auto || used == Frontend::Nvcc) {
    compiler = find_nvcc();
    if (compiler) {
      used = Frontend::Nvcc;
    } else if (used == Frontend::Nvcc) {
      throw FrontendNotFound(cu_file,
                             "the nvcc front end was requested but nvcc is not installed (looked "
                             "on PATH and at /usr/local/cuda/bin/nvcc); use the clang front end");
    }
  }
  if (!compiler) {
    compiler = find_clang();
    if (!compiler)
      throw FrontendNotFound(
          cu_file, used == Frontend::Clang
                       ? "the clang front end was requested but clang++ (or clang++-14) is not on "
                         "PATH; install Debian's clang package"
                       : "no CUDA front end: neither nvcc nor clang++ (clang++-14) is installed; "
                         "install Debian's clang package");
    used = Frontend::Clang;
  }
  try {
    return run_front_end(cu_file, used, *compiler, options);
  } catch (const CompileError&) {
    throw;
  } catch (const std::exception& e) {  // no temporary directory, or the compiler did not start
    throw CompileError(fmt::format("{}: error: {}", cu_file, e.what()), cu_file, 0, 0, "", "");
  }
}

}  // namespace tsm::compiler
