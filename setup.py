"""The optional compiled core (xuezhan.native._core): built when a C compiler is there.

Without one, ``pip install .`` still succeeds and xuezhan runs on its pure-Python engine.
Before compiling, the C header of ids, enums, fan tables and the rules layout (``xz_gen.h``)
is written from the Python tables by ``xuezhan.native.gen`` into the build tree.
"""

import importlib
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def write_generated_header(out_dir: str) -> str:
    """Run the generator from this source tree (not an installed xuezhan) and return the header's folder."""
    src = os.path.join(HERE, "src")
    sys.path.insert(0, src)
    try:
        stale = [name for name in sys.modules if name == "xuezhan" or name.startswith("xuezhan.")]
        for name in stale:  # another copy imported before: read this tree's tables
            del sys.modules[name]
        gen = importlib.import_module("xuezhan.native.gen")
        gen.write_header(out_dir)
    finally:
        sys.path.remove(src)
    return out_dir


class OptionalBuildExt(build_ext):
    """Generate the header, then build the extension if possible; otherwise say so in one line and go on."""

    def run(self) -> None:
        try:
            include = write_generated_header(os.path.join(os.path.abspath(self.build_temp), "xz_gen"))
        except Exception as exc:  # the tables cannot be read: the compiled core cannot match them
            print(f"xuezhan: compiled core not built (its header: {type(exc).__name__}: {exc});"
                  " the Python engine is used")
            return
        for ext in self.extensions:
            ext.include_dirs = [include, *ext.include_dirs]
            ext.depends = [*ext.depends, os.path.join(include, "xz_gen.h")]
        try:
            super().run()
        except Exception as exc:  # no compiler at all
            print(f"xuezhan: compiled core not built ({type(exc).__name__}); the Python engine is used")

    def build_extension(self, ext: Extension) -> None:
        if self.compiler.compiler_type == "unix":
            # no fused multiply-add: the compiled bots' floats must round as Python's do
            ext.extra_compile_args = [*ext.extra_compile_args, "-ffp-contract=off"]
        try:
            super().build_extension(ext)
        except Exception as exc:  # the compiler failed
            print(f"xuezhan: compiled core not built ({type(exc).__name__}); the Python engine is used")


setup(
    ext_modules=[
        Extension(
            "xuezhan.native._core",
            sources=["csrc/xz_engine.c", "csrc/xz_bots.c", "csrc/xz_heuristic.c", "csrc/xz_learned.c",
                     "csrc/xz_load.c",
                     "csrc/xz_rules_py.c", "csrc/xz_module.c", "csrc/xz_env.c"],
            depends=["csrc/xz_engine.h", "csrc/xz_reading.h"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
