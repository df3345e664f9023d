//===- ManifestDir.h - Every kernel of a directory of manifests -*- C++ -*-===//
//
// The property test and the runtime fuzzer read the manifests megac writes
// for kernels-dsl/ (ctest signature_property_kernels puts them in one folder).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_TEST_RUNTIME_MANIFESTDIR_H
#define MEGAC_TEST_RUNTIME_MANIFESTDIR_H

#include "megac/runtime/error.h"
#include "megac/runtime/manifest.h"

#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace megac::rt::test {

/// The kernels of every *.json manifest in `dir`; throws Error when the
/// directory cannot be read, ManifestError for a bad manifest.
inline std::vector<KernelInfo> manifestKernels(const std::string &dir) {
  DIR *d = opendir(dir.c_str());
  if (!d)
    throw Error("cannot open the manifest directory " + dir);
  std::vector<std::string> names;
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".json")
      names.push_back(name);
  }
  closedir(d);
  std::vector<KernelInfo> kernels;
  for (const std::string &name : names) {
    std::ifstream in(dir + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    for (KernelInfo &k : parseManifest(text.str(), name).kernels)
      kernels.push_back(std::move(k));
  }
  return kernels;
}

} // namespace megac::rt::test

#endif // MEGAC_TEST_RUNTIME_MANIFESTDIR_H
