"""Print the Arrow schema of Winnow's LanceDB tables as Python lancedb sees them.

Usage: read_lance_tables.py DB TABLE [TABLE ...]; prints one JSON object {table: {column: type}}.
"""
import json
import sys

import lancedb


def main() -> None:
    db = lancedb.connect(sys.argv[1])
    out = {}
    for name in sys.argv[2:]:
        table = db.open_table(name)
        data = table.to_arrow()
        out[name] = {f.name: str(f.type) for f in data.schema}
        out[name + ':rows'] = data.num_rows
    print(json.dumps(out))


if __name__ == "__main__":
    main()
