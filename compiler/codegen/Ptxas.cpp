#include "Ptxas.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace megac {
namespace {

bool executable(const std::string &path) { return access(path.c_str(), X_OK) == 0; }

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

std::optional<std::string> findPtxas() {
  if (const char *env = std::getenv("MEGAC_PTXAS"))
    return executable(env) ? std::optional<std::string>(env) : std::nullopt;
  std::vector<std::string> candidates;
  if (const char *home = std::getenv("CUDA_HOME"))
    candidates.push_back(std::string(home) + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  if (const char *path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':'))
      candidates.push_back(dir + "/ptxas");
  }
  for (const std::string &c : candidates)
    if (executable(c))
      return c;
  return std::nullopt;
}

std::map<std::string, KernelResources> parsePtxasReport(const std::string &log) {
  std::map<std::string, KernelResources> out;
  static const std::regex function(R"(Compiling entry function '([^']+)')");
  static const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::string current;
  std::istringstream lines(log);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, function)) {
      current = m[1];
      out[current];
      continue;
    }
    if (current.empty())
      continue;
    KernelResources &k = out[current];
    if (std::regex_search(line, m, frame)) {
      k.stack = std::stoi(m[1]);
      k.spillStores = std::stoi(m[2]);
      k.spillLoads = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, used))
      k.registers = std::stoi(m[1]);
    if (std::regex_search(line, m, smem))
      k.shared = std::stoi(m[1]);
  }
  return out;
}

PtxasResult runPtxas(const std::string &ptxasPath, const std::string &ptx,
                     const std::string &arch) {
  PtxasResult result;
  char dir[] = "/tmp/megac-ptxas-XXXXXX";
  if (!mkdtemp(dir)) {
    result.log = "cannot create a temporary directory for ptxas";
    return result;
  }
  std::string in = std::string(dir) + "/in.ptx", out = std::string(dir) + "/out.cubin",
              log = std::string(dir) + "/log.txt";
  std::ofstream(in, std::ios::binary) << ptx;
  // posix_spawn, not fork and exec: targets compile on threads side by side,
  // and a forked child of a process whose other threads hold the allocator's
  // or stdio's locks must not call anything but async-signal-safe functions.
  std::string archFlag = "-arch=" + arch;
  const char *argv[] = {ptxasPath.c_str(), "-v", archFlag.c_str(), "-O3", in.c_str(), "-o",
                        out.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int status = 0;
  int spawnError = posix_spawn(&pid, ptxasPath.c_str(), &actions, nullptr,
                               const_cast<char *const *>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  bool spawned = spawnError == 0;
  if (spawned)
    waitpid(pid, &status, 0);
  result.log = spawned ? readFile(log) : "cannot run " + ptxasPath + ": " + std::strerror(spawnError);
  result.ok = spawned && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (result.ok) {
    result.cubin = readFile(out);
    result.kernels = parsePtxasReport(result.log);
  }
  unlink(in.c_str());
  unlink(out.c_str());
  unlink(log.c_str());
  rmdir(dir);
  return result;
}

} // namespace megac
