# One lit+FileCheck file per pass and per lowering step; see docs/testing.md.
import os
import shutil

import lit.formats

config.name = "megac"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".mega"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.megac_tools_dir, "..", "..", "test", "lit")
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]

# `lit --param megac_dir=DIR` runs every test with DIR's megac instead of the build's (ctest
# `lit_portable_megac`: the portable megac, laid out by BOLT, must pass the suite as the build's does).
megac_dirs = [lit_config.params["megac_dir"]] if "megac_dir" in lit_config.params else []
config.environment["PATH"] = os.pathsep.join(
    megac_dirs + [config.megac_tools_dir, config.llvm_tools_dir,
                  config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("CUDA_HOME", "MEGAC_LIBDEVICE", "MEGAC_PTXAS", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%kernels", os.path.join(config.megac_source_dir, "kernels-dsl")))

# Tests that assemble with ptxas need it; without, they are reported unsupported.
if os.environ.get("MEGAC_PTXAS") or os.path.exists("/usr/local/cuda/bin/ptxas") or shutil.which("ptxas"):
    config.available_features.add("ptxas")
