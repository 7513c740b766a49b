#!/usr/bin/python3
"""udp-echo.py ADDR PORT: a kernel UDP echo, the "software" of an emulated
kernel device (tools/kernel-devices.sh). Every datagram goes back to its
sender unchanged (linerate's header inside it, so rtt accounts it). Ends on
SIGTERM or SIGINT; prints the datagrams it echoed."""
import signal
import socket
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: udp-echo.py ADDR PORT")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((sys.argv[1], int(sys.argv[2])))
    n = 0

    def end(*_):
        print("udp-echo: %d datagrams echoed" % n, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGINT, end)
    print("udp-echo: ready on %s:%s" % (sys.argv[1], sys.argv[2]), flush=True)
    while True:
        data, peer = s.recvfrom(65535)
        s.sendto(data, peer)
        n += 1


if __name__ == "__main__":
    main()
