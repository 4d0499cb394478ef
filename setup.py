"""`pip install .`: the package's pure-Python files from python/panoramix, and its compiled module
built by the project's CMake (target _panoramix, the same one `make python` builds)."""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version() -> str:
    """The project's version, from CMakeLists.txt's project() line."""
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(panoramix VERSION ([0-9.]+)", text).group(1)


class CMakeExtension(Extension):
    def __init__(self, name: str):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures the project (no tests) for this interpreter, builds _panoramix, copies it in."""

    def build_extension(self, ext: Extension) -> None:
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        build = Path(self.build_temp).resolve() / "cmake"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        configure = ["cmake", "-S", str(ROOT), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
                     "-DPMX_TESTS=OFF", "-DPMX_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}",
                     *shlex.split(os.environ.get("PMX_CMAKE_ARGS", ""))]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "_panoramix", "-j", jobs], check=True)
        built = next((build / "python" / "panoramix").glob("_panoramix*.so"))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)


setup(
    version=version(),
    packages=["panoramix"],
    package_dir={"panoramix": "python/panoramix"},
    ext_modules=[CMakeExtension("panoramix._panoramix")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build-pip"}},  # not build/, the CMake tree of `make`
    zip_safe=False,
)
