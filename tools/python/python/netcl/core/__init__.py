"""netcl.core: the selector, under the module path the wiki uses
(``from netcl.core.kernel_selector import KernelSelector``)."""
from .kernel_selector import KernelSelector

__all__ = ["KernelSelector"]
