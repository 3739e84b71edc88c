"""The optional compiled core (xuezhan.native._core): built when a C compiler is there.

Without one, ``pip install .`` still succeeds and xuezhan runs on its pure-Python engine.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """Build the extension if possible; otherwise say so in one line and go on."""

    def run(self) -> None:
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
            sources=["csrc/xz_engine.c", "csrc/xz_heuristic.c", "csrc/xz_load.c", "csrc/xz_module.c", "csrc/xz_env.c"],
            depends=["csrc/xz_engine.h"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
