"""An import-linter contract type: no module imports another package's private modules or names.

A module or name is private when its name starts with one underscore (`_metrics`, `_slug`). It
belongs to the package that holds it: `vqakit.scoring._metrics` to `vqakit.scoring`. Only modules
inside that package may import it; everything else imports the public names the package's
`__init__` re-exports.
"""

from __future__ import annotations

import re

from importlinter import Contract, ContractCheck, fields, output


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _owner(module: str) -> str | None:
    """The package a private module belongs to, or None for a public module."""
    parts = module.split(".")
    for index, part in enumerate(parts):
        if _private(part):
            return ".".join(parts[:index])
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


_IMPORTED_NAMES = re.compile(r"\bimport\s+\(?(.+?)\)?\s*$", re.DOTALL)


def _names(line: str) -> list[str]:
    match = _IMPORTED_NAMES.search(line)
    if not match:
        return []
    return [part.split(" as ")[0].strip() for part in match[1].split(",") if part.strip()]


class PrivateImportsContract(Contract):
    """Configuration: `packages`, the root packages whose modules are checked."""

    type_name = "private_imports"

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph, verbose: bool) -> ContractCheck:  # graph: grimp.ImportGraph
        broken: list[str] = []
        roots = list(self.packages)  # type: ignore[arg-type]
        for importer in sorted(graph.modules):
            if not any(_inside(importer, root) for root in roots):
                continue
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                if not any(_inside(imported, root) for root in roots):
                    continue
                owner = _owner(imported)
                details = graph.get_import_details(importer=importer, imported=imported)
                if owner is not None and not _inside(importer, owner):
                    line = details[0]["line_number"] if details else "?"
                    broken.append(f"{importer}:{line} imports private module {imported} (of {owner})")
                    continue
                package = imported if graph.find_children(imported) else imported.rpartition(".")[0]
                if _inside(importer, package):
                    continue
                for detail in details:
                    private = [name for name in _names(detail["line_contents"]) if _private(name)]
                    if private:
                        broken.append(
                            f"{importer}:{detail['line_number']} imports private name(s) "
                            f"{', '.join(private)} from {imported}"
                        )
        return ContractCheck(kept=not broken, metadata={"broken": broken})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["broken"]:
            output.print_error(line, bold=False)
            output.new_line()
