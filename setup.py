"""Build the Cython state cores and generate the gRPC stubs.

Stubs go to ``atoll/v1/`` (gitignored) before any setuptools command runs, so editable and regular installs both
import ``atoll.v1``. ``CYTHON_ANNOTATE=1`` writes the annotate HTML next to each ``.pyx``.
"""

import os
import shutil
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = Path(__file__).parent.resolve()
PROTO_ROOT = ROOT / "proto"
STUB_PACKAGE = ROOT / "atoll" / "v1"

COMPILE_ARGS = ["-O3", "-g0", "-Wno-unused-function", "-Wno-unreachable-code"]
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}

MODULES = [
    "engine_ext.core",
    "engine_ext.kuhn_poker",
    "engine_ext.leduc_poker",
    "engine_ext.survive_rules",
    "engine_ext.survive",
    "engine_ext.islet_rules",
    "engine_ext.islet",
    "engine_ext.small_islands_rules",
    "engine_ext.small_islands",
    "search.mcts",
]


def generate_stubs() -> None:
    """Compile every ``proto/atoll/v1/*.proto`` into ``atoll/v1`` (message, gRPC and typed ``.pyi`` stubs)."""
    from grpc_tools import protoc

    protos = sorted(PROTO_ROOT.glob("atoll/v1/*.proto"))
    STUB_PACKAGE.mkdir(parents=True, exist_ok=True)
    (STUB_PACKAGE / "__init__.py").touch()
    newest = max(p.stat().st_mtime for p in protos)
    marker = STUB_PACKAGE / ".generated"
    if marker.exists() and marker.stat().st_mtime >= newest:
        return
    include = Path(protoc.__file__).parent / "_proto"
    mypy_plugin = shutil.which(
        "protoc-gen-mypy", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    )
    if mypy_plugin is None:
        raise RuntimeError("protoc-gen-mypy (mypy-protobuf) is missing from the build environment")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={ROOT}",
        f"--grpc_python_out={ROOT}",
        f"--plugin=protoc-gen-mypy={mypy_plugin}",
        f"--mypy_out={ROOT}",
        *[str(p) for p in protos],
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on " + ", ".join(p.name for p in protos))
    marker.touch()


def extensions() -> list[Extension]:
    exts = [Extension(name, [name.replace(".", "/") + ".pyx"], extra_compile_args=COMPILE_ARGS) for name in MODULES]
    return cythonize(
        exts,
        compiler_directives=DIRECTIVES,
        annotate=os.environ.get("CYTHON_ANNOTATE") == "1",
        nthreads=os.cpu_count() or 1,
    )


# Every setuptools command (metadata, build_py, editable wheels) needs the stub package to exist, so the stubs are
# generated before setup() runs; generate_stubs() skips the work when they are newer than every .proto.
generate_stubs()
setup(ext_modules=extensions())
