"""Reading and writing networks: BIF / XMLBIF that keep every name, state and state type (see ``_bif``);
STRUCTURE-format genotype files (see ``_popgen``)."""

from pgmpy_ext.io._bif import escape_name, read_bif, read_xmlbif, unescape_name, write_bif, write_xmlbif
from pgmpy_ext.io._popgen import StructureData, read_structure, write_structure

__all__ = ["escape_name", "read_bif", "read_xmlbif", "unescape_name", "write_bif", "write_xmlbif"]
__all__ += ["StructureData", "read_structure", "write_structure"]
