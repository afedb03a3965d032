# Escape attempts from inside the sandbox (test/drivers/sandbox-escapes.spec.ts): each probe
# tries one thing a hostile implementation with root's uid would try, and reports what the
# kernel said. Python, for the system calls Node cannot make (raw sockets, file handles,
# System V IPC). Prints one JSON object; never raises.
import ctypes, ctypes.util, errno, json, os, socket, sys

out = {}
marker = sys.argv[1]
secret_dir = sys.argv[2]
libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def attempt(name, fn):
    try:
        r = fn()
        out[name] = "ok" if r is None else r
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))
    except Exception as e:  # anything else is a finding too, said plainly
        out[name] = type(e).__name__


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return line.split()[1]


for cap in ("CapEff", "CapPrm", "CapBnd", "CapInh", "CapAmb", "NoNewPrivs"):
    out[cap] = status(cap)
out["fds"] = sorted(int(n) for n in os.listdir("/proc/self/fd"))


def write(path, data="x"):
    with open(path, "w") as f:
        f.write(data)


attempt("core_pattern", lambda: write("/proc/sys/kernel/core_pattern", "|/bin/false"))
attempt("sysctl_net", lambda: write("/proc/sys/net/ipv4/ip_forward", "1"))
attempt("sys_thp", lambda: write("/sys/kernel/mm/transparent_hugepage/enabled", "never"))
attempt("cgroup_mkdir", lambda: os.mkdir("/sys/fs/cgroup/" + marker))
attempt("dev_file", lambda: write("/dev/" + marker))
attempt("dev_shm_file", lambda: write("/dev/shm/" + marker))
attempt("dev_kmsg", lambda: open("/dev/kmsg").read(1))
attempt("tmp_file", lambda: write("/tmp/" + marker))
attempt("packet_socket", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)).close())
attempt("raw_socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP).close())


def sysv_shm():
    # A System V segment keyed by the marker: the host looks for it after the teardown.
    key = int(marker[-6:], 16) if all(c in "0123456789abcdef" for c in marker[-6:]) else 0x5A5A5A
    shmid = libc.shmget(key, 4096, 0o1000 | 0o600)  # IPC_CREAT
    if shmid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    return "created"


attempt("sysv_shm", sysv_shm)


def by_handle():
    # name_to_handle_at needs no capability; open_by_handle_at needs CAP_DAC_READ_SEARCH,
    # and with it reaches any file of the filesystem past the mount namespace.
    class FileHandle(ctypes.Structure):
        _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int), ("f_handle", ctypes.c_ubyte * 128)]

    fh = FileHandle()
    fh.handle_bytes = 128
    mount_id = ctypes.c_int()
    if libc.name_to_handle_at(-100, b"/", ctypes.byref(fh), ctypes.byref(mount_id), 0) != 0:
        raise OSError(ctypes.get_errno(), "name_to_handle_at")
    mfd = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
    fd = libc.open_by_handle_at(mfd, ctypes.byref(fh), os.O_RDONLY | os.O_DIRECTORY)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "open_by_handle_at")
    os.close(fd)
    return "opened"


attempt("open_by_handle", by_handle)
attempt("mount_tmpfs", lambda: os.system("mount -t tmpfs x /mnt 2>/dev/null") == 0 and "mounted" or "refused")
attempt("remount_rw", lambda: os.system("mount -o remount,rw / 2>/dev/null") == 0 and "remounted" or "refused")
attempt("umount_hidden", lambda: os.system("umount " + secret_dir + " 2>/dev/null") == 0 and "unmounted" or "refused")
attempt("hidden_listing", lambda: os.listdir(secret_dir))
attempt("userns", lambda: os.system("unshare -U -r true 2>/dev/null") == 0 and "created" or "refused")
attempt("sethostname", lambda: libc.sethostname(b"ahp-pwned", 9) == 0 and "set" or errno.errorcode.get(ctypes.get_errno()))
attempt("mknod", lambda: os.mknod("/dev/shm/" + marker + "-mem", 0o600 | 0o020000, os.makedev(1, 1)))
attempt("chattr_immutable", lambda: os.system("touch " + marker + "-imm && chattr +i " + marker + "-imm 2>/dev/null") == 0 and "set" or "refused")
attempt("kill_init", lambda: os.kill(1, 9))
attempt("visible_pids", lambda: len([p for p in os.listdir("/proc") if p.isdigit()]))


def setuid():
    # Another uid is unmapped (EINVAL) or forbidden (EPERM): either way, refused.
    try:
        os.setuid(1000)
        return "set"
    except OSError as e:
        return "refused" if e.errno in (errno.EPERM, errno.EINVAL) else errno.errorcode.get(e.errno)


attempt("setuid", setuid)
print(json.dumps(out), flush=True)
