// NVRTC through dlopen and the cubin cache (memory map + content-addressed files).
#include "engine/backend/cuda/nvrtc.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/base/errors.h"
#include "engine/base/sha256.h"

namespace sf::backend::cuda {

struct Nvrtc::Api {
  decltype(&::nvrtcVersion) version;
  decltype(&::nvrtcGetErrorString) error_string;
  decltype(&::nvrtcCreateProgram) create;
  decltype(&::nvrtcDestroyProgram) destroy;
  decltype(&::nvrtcCompileProgram) compile;
  decltype(&::nvrtcGetProgramLogSize) log_size;
  decltype(&::nvrtcGetProgramLog) log;
  decltype(&::nvrtcGetCUBINSize) cubin_size;
  decltype(&::nvrtcGetCUBIN) cubin;
};

std::vector<std::string> default_nvrtc_options() { return {"-fmad=false", "--std=c++17"}; }

Nvrtc::Nvrtc() {
  void* lib = nullptr;
  std::string errors;
  std::vector<std::string> names = {"libnvrtc.so", "libnvrtc.so.13"};
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* home = std::getenv(var); home && *home) {
      names.push_back(std::string(home) + "/lib64/libnvrtc.so");
    }
  }
  names.push_back("/usr/local/cuda/lib64/libnvrtc.so");
  for (const std::string& name : names) {
    lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* e = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (e ? e : name.c_str());
  }
  if (!lib) {
    why_ = "libnvrtc not found (" + errors + "): install the CUDA toolkit";
    return;
  }
  auto* api = new Api();
  bool ok = true;
  auto load = [&](auto& fn, const char* sym) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, sym));
    if (!fn) {
      ok = false;
      why_ = std::string("libnvrtc lacks ") + sym;
    }
  };
  load(api->version, "nvrtcVersion");
  load(api->error_string, "nvrtcGetErrorString");
  load(api->create, "nvrtcCreateProgram");
  load(api->destroy, "nvrtcDestroyProgram");
  load(api->compile, "nvrtcCompileProgram");
  load(api->log_size, "nvrtcGetProgramLogSize");
  load(api->log, "nvrtcGetProgramLog");
  load(api->cubin_size, "nvrtcGetCUBINSize");
  load(api->cubin, "nvrtcGetCUBIN");
  if (!ok) {
    delete api;
    return;
  }
  api->version(&major_, &minor_);
  api_ = api;
}

Nvrtc& Nvrtc::get() {
  static Nvrtc* instance = new Nvrtc();
  return *instance;
}

bool Nvrtc::available(std::string* why) const {
  if (api_) return true;
  if (why) *why = why_;
  return false;
}

std::string Nvrtc::version() const { return std::to_string(major_) + "." + std::to_string(minor_); }

std::string Nvrtc::compile_cubin(const std::string& source, const std::string& arch,
                                 const std::vector<std::string>& options,
                                 const std::string& name) const {
  if (!api_) throw Unavailable("NVRTC unavailable: " + why_);
  nvrtcProgram prog = nullptr;
  nvrtcResult r = api_->create(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    throw EngineBug(std::string("nvrtcCreateProgram: ") + api_->error_string(r));
  std::vector<std::string> all = options;
  all.push_back("--gpu-architecture=" + arch);
  std::vector<const char*> argv;
  for (const std::string& o : all) argv.push_back(o.c_str());
  r = api_->compile(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  api_->log_size(prog, &log_size);
  std::string log(log_size, '\0');
  if (log_size > 0) api_->log(prog, log.data());
  if (r != NVRTC_SUCCESS) {
    api_->destroy(&prog);
    throw EngineBug("NVRTC failed to compile " + name + " for " + arch + " (" +
                    api_->error_string(r) + "):\n" + log + "\n--- source ---\n" + source);
  }
  size_t size = 0;
  api_->cubin_size(prog, &size);
  std::string cubin(size, '\0');
  api_->cubin(prog, cubin.data());
  api_->destroy(&prog);
  return cubin;
}

NvrtcCache::NvrtcCache(std::string dir) : dir_(std::move(dir)) {}

NvrtcCache& NvrtcCache::shared() {
  static NvrtcCache* cache = new NvrtcCache(default_dir());
  return *cache;
}

std::string NvrtcCache::default_dir() {
  if (const char* d = std::getenv("SHAPEFUZZ_CACHE_DIR"); d && *d) return d;
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.cache/shapefuzz/nvrtc";
  }
  return "";
}

std::string NvrtcCache::key(const std::string& source, const std::string& arch,
                            const std::vector<std::string>& options) {
  // The NVRTC version is part of the key: a toolkit upgrade never reuses stale cubins.
  std::string material = "nvrtc " + Nvrtc::get().version() + "\narch " + arch + "\n";
  for (const std::string& o : options) material += "opt " + o + "\n";
  material += "source\n" + source;
  return sha256_hex(material);
}

bool NvrtcCache::read_disk(const std::string& key, std::string* out) const {
  if (dir_.empty()) return false;
  std::ifstream in(dir_ + "/" + key + ".cubin", std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return out->rfind(
             "\x7f"
             "ELF",
             0) == 0;  // a cubin is an ELF image; anything else is stale
}

void NvrtcCache::write_disk(const std::string& key, const std::string& cubin) const {
  if (dir_.empty()) return;
  // Best effort: a cache directory we cannot write only costs recompilation.
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  static std::atomic<int> counter{0};
  std::string tmp =
      dir_ + "/." + key + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, dir_ + "/" + key + ".cubin", ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

std::string NvrtcCache::cubin(const std::string& source, const std::string& arch,
                              const std::vector<std::string>& options) {
  std::string k = key(source, arch, options);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = memory_.find(k);
    if (it != memory_.end()) {
      ++memory_hits_;
      return it->second;
    }
  }
  std::string bin;
  bool from_disk = read_disk(k, &bin);
  if (!from_disk) bin = Nvrtc::get().compile_cubin(source, arch, options);
  std::lock_guard<std::mutex> lock(mu_);
  ++(from_disk ? disk_hits_ : misses_);
  if (!from_disk) write_disk(k, bin);
  memory_.emplace(k, bin);
  return bin;
}

}  // namespace sf::backend::cuda
