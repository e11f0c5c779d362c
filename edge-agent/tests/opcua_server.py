"""A PLC's OPC UA server for the tests (Python's asyncua from PyPI, an implementation
independent of the agent's): a line `Line1` under the Objects folder with the variables
a station's PLC offers, in namespace `urn:gemba:test:plc` (index 2):

    ns=2;s=Line1.PartNumber    String
    ns=2;s=Line1.Torque        Double
    ns=2;s=Line1.CycleCounter  Int32
    ns=2;s=Line1.Start         Boolean   a cycle starts (a pulse)
    ns=2;s=Line1.End           Boolean   a cycle ends (a pulse)

No security, anonymous sessions. Usage: `opcua_server.py PORT` serves
`opc.tcp://127.0.0.1:PORT/` and prints `ready` once it does; then it reads commands on
its standard input, one a line, and answers `ok` to each (or `error: why`):

    set NAME VALUE   the variable NAME takes VALUE (read as its type)
    pulse NAME       the Boolean NAME turns true, then false 300 ms later
"""

import asyncio
import sys

from asyncua import Server, ua

NAMESPACE = "urn:gemba:test:plc"

VARIABLES = {
    "PartNumber": ("", ua.VariantType.String),
    "Torque": (0.0, ua.VariantType.Double),
    "CycleCounter": (0, ua.VariantType.Int32),
    "Start": (False, ua.VariantType.Boolean),
    "End": (False, ua.VariantType.Boolean),
}


def parse(text, kind):
    if kind == ua.VariantType.Double:
        return float(text)
    if kind == ua.VariantType.Int32:
        return int(text)
    if kind == ua.VariantType.Boolean:
        return text.lower() in ("1", "true")
    return text


async def main():
    port = int(sys.argv[1])
    server = Server()
    await server.init()
    server.set_endpoint(f"opc.tcp://127.0.0.1:{port}/")
    server.set_server_name("gemba test PLC")
    await server.set_application_uri("urn:gemba:test:plc-server")
    server.set_security_policy([ua.SecurityPolicyType.NoSecurity])
    ns = await server.register_namespace(NAMESPACE)
    line = await server.nodes.objects.add_object(ua.NodeId("Line1", ns), "Line1")
    nodes = {}
    for name, (initial, kind) in VARIABLES.items():
        nodes[name] = await line.add_variable(
            ua.NodeId(f"Line1.{name}", ns), name, ua.Variant(initial, kind)
        )

    async def write(name, value):
        kind = VARIABLES[name][1]
        await nodes[name].write_value(ua.Variant(value, kind))

    async with server:
        print("ready", flush=True)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), sys.stdin
        )
        while True:
            raw = await reader.readline()
            if not raw:
                break
            words = raw.decode().strip().split(" ", 2)
            try:
                if words[0] == "set" and len(words) == 3:
                    await write(words[1], parse(words[2], VARIABLES[words[1]][1]))
                elif words[0] == "pulse" and len(words) == 2:
                    await write(words[1], True)
                    await asyncio.sleep(0.3)
                    await write(words[1], False)
                else:
                    raise ValueError(f"unknown command {raw!r}")
                print("ok", flush=True)
            except Exception as e:  # the test reads why
                print(f"error: {e}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
