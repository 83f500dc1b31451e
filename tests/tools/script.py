"""Loading a script of the tree as a module: the tools are files without .py."""
import importlib.machinery
import importlib.util
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_script(path, name):
    """The file at path (relative to the tree's top) run as module name."""
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(TOP, path))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
