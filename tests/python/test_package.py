"""The installed package: self-contained (libnetcl inside it, found without
LD_LIBRARY_PATH), typed, and of the library's version."""
import ast
import os
import re
import subprocess
import sys

import netcl as nc

PACKAGE = os.path.dirname(nc.__file__)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_library_ships_inside_the_package():
    libs = [f for f in os.listdir(PACKAGE) if f.startswith("libnetcl.so")]
    assert len(libs) == 1, libs
    with open("/proc/self/maps") as maps:
        loaded = {line.split()[-1] for line in maps if "libnetcl.so" in line}
    assert loaded == {os.path.join(PACKAGE, libs[0])}


def test_imports_without_library_path():
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    run = subprocess.run([sys.executable, "-c", "import netcl; print(netcl.version())"], env=env, cwd="/",
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == nc.__version__


def test_version_is_the_library_version():
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        declared = re.search(r"project\(netcl VERSION ([0-9.]+)", f.read()).group(1)
    assert nc.version() == nc.__version__ == declared


def test_type_stubs():
    assert os.path.exists(os.path.join(PACKAGE, "py.typed"))
    with open(os.path.join(PACKAGE, "_netcl.pyi")) as f:
        stub = f.read()
    tree = ast.parse(stub)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    assert {"Tensor", "Context", "ConvShapes", "Plan", "DeviceProfile", "Decision", "Error", "Event"} <= set(classes)
    methods = {n.name for n in classes["Tensor"].body if isinstance(n, ast.FunctionDef)}
    assert {"from_host", "from_pyopencl", "to_host", "numel", "empty"} <= methods
    # Every C++ type has a Python name (nanobind quotes the ones it cannot name).
    assert not re.search(r'"(std|cl|netcl)::', stub), re.findall(r'"(?:std|cl|netcl)::[^"]*"', stub)
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"set_default_conv_strategy", "clear_default_conv_strategy", "default_context"} <= functions


def test_public_names():
    for name in nc.__all__:
        assert getattr(nc, name) is not None
    from netcl.core.kernel_selector import KernelSelector
    assert KernelSelector is nc.KernelSelector
    assert nc.strategies() == ["CONV2D_NAIVE", "IM2COL", "CONV2D_WINOGRAD"]
    assert issubclass(nc.Error, RuntimeError) and issubclass(nc.PredicateWarning, RuntimeWarning)
