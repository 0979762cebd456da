"""Read Arrow IPC files with pyarrow (tests/io/arrow-ipc.test.ts).

Each argument is a path: `.arrows` is an IPC stream, `.arrow` an IPC file. Every batch is checked
with pyarrow's full validation; prints one JSON line: path -> column name -> values.
"""
import json
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

out = {}
for path in sys.argv[1:]:
    with pa.memory_map(path) as source:
        reader = ipc.open_stream(source) if path.endswith(".arrows") else ipc.open_file(source)
        table = reader.read_all()
    for batch in table.to_batches():
        batch.validate(full=True)
    out[path] = {name: table.column(name).to_pylist() for name in table.column_names}
print(json.dumps(out))
