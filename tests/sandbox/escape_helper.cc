// Attempts an escape the shell cannot express, and says whether it worked. Run inside and outside
// the sandbox by escape_test.cc: "ok" and exit 0 when the attempt succeeded, else the error.
//   escape_helper ptrace PID | tiocsti | io_uring | inet | keyctl | adjtimex | iopl | ia32 |
//                 unshare_mount | alloc MIB | shm ID | setuid_open PATH | setuid_chmod PATH |
//                 setgid_chmod PATH | unix_pair | unix_own PATH | unix_high PATH |
//                 dgram_pair PATH | raw_pair PATH | setuid_openat2 PATH | setuid_fchmodat2 PATH |
//                 userns_unshare | userns_clone | userns_clone3
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

int Report(bool ok, const char* what) {
  if (ok) {
    printf("ok\n");
    return 0;
  }
  printf("%s: %s\n", what, strerror(errno));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string what = argv[1];
  if (what == "ptrace" && argc == 3) {
    pid_t pid = atoi(argv[2]);
    bool ok = ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) == 0;
    if (ok) {
      waitpid(pid, nullptr, 0);
      ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    }
    return Report(ok, "ptrace");
  }
  if (what == "tiocsti") {
    // On a terminal of our own, so the attempt is harmless outside the sandbox too.
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return Report(false, "pty");
    int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
    if (slave < 0) return Report(false, "pty");
    char c = 'x';
    return Report(ioctl(slave, TIOCSTI, &c) == 0, "TIOCSTI");
  }
  if (what == "io_uring") {
    char params[120] = {};
    long fd = syscall(SYS_io_uring_setup, 4, params);
    return Report(fd >= 0, "io_uring_setup");
  }
  if (what == "unix" && argc == 3) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", argv[2]);
    return Report(s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0,
                  "connect(AF_UNIX)");
  }
  if (what == "abstract" && argc == 3) {
    // An abstract socket: a name with no file, "@NAME".
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    size_t n = strnlen(argv[2], sizeof a.sun_path - 1);
    memcpy(a.sun_path + 1, argv[2], n);
    socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
    return Report(s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&a), len) == 0,
                  "connect(abstract)");
  }
  if (what == "inet") {
    return Report(socket(AF_INET, SOCK_STREAM, 0) >= 0, "socket(AF_INET)");
  }
  if (what == "keyctl") {
    return Report(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) >= 0,
                  "keyctl");
  }
  if (what == "adjtimex") {
    // Only reads the clock's state (modes 0): allowed to anyone outside the sandbox.
    timex t{};
    return Report(adjtimex(&t) >= 0, "adjtimex");
  }
#if defined(__x86_64__)
  if (what == "ia32") {
    // getpid through the 32-bit system call ABI (number 20 there): a filter written for the
    // 64-bit ABI alone would not see it.
    long pid;
    asm volatile("int $0x80" : "=a"(pid) : "a"(20L) : "memory");
    return Report(pid == getpid(), "int 0x80");
  }
  if (what == "iopl") {
    // Level 0 changes nothing, and anyone may set it outside the sandbox.
    return Report(syscall(SYS_iopl, 0) == 0, "iopl");
  }
#endif
  if (what == "alloc" && argc == 3) {
    // Touches MIB mebibytes, one at a time, and keeps them: a memory bomb with an end, so that
    // it can be shown to work without a limit.
    long mib = atol(argv[2]);
    for (long i = 0; i < mib; ++i) {
      void* p = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return Report(false, "mmap");
      memset(p, 1, 1 << 20);
    }
    return Report(true, "alloc");
  }
  if (what == "shm" && argc == 3) {
    // Attaches a System V shared memory segment of the host by id and prints its text.
    void* p = shmat(atoi(argv[2]), nullptr, SHM_RDONLY);
    if (p == reinterpret_cast<void*>(-1)) return Report(false, "shmat");
    printf("%.64s\n", static_cast<const char*>(p));
    return Report(true, "shm");
  }
  if ((what == "setuid_open" || what == "setuid_chmod" || what == "setgid_chmod") && argc == 3) {
    // A file made setuid (or setgid) by open's mode or by chmod; "ok" when the bit is on it.
    mode_t bit = what == "setgid_chmod" ? S_ISGID : S_ISUID;
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, what == "setuid_open" ? 04755 : 0755);
    if (fd < 0) return Report(false, "open");
    close(fd);
    if (what != "setuid_open" && chmod(argv[2], 0755 | bit) != 0) return Report(false, "chmod");
    struct stat st;
    return Report(stat(argv[2], &st) == 0 && (st.st_mode & bit) != 0, "the bit");
  }
  if ((what == "setuid_openat2" || what == "setuid_fchmodat2") && argc == 3) {
    // The calls a filter on open and chmod alone would miss: openat2 (its mode is in a struct)
    // and fchmodat2 (Linux 6.6, number 452 on x86_64 and aarch64).
    if (what == "setuid_openat2") {
      struct {
        uint64_t flags, mode, resolve;
      } how = {O_WRONLY | O_CREAT | O_CLOEXEC, 04755, 0};
      long fd = syscall(SYS_openat2, AT_FDCWD, argv[2], &how, sizeof how);
      if (fd < 0) return Report(false, "openat2");
      close(static_cast<int>(fd));
    } else {
      int fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
      if (fd < 0) return Report(false, "open");
      close(fd);
      if (syscall(452, AT_FDCWD, argv[2], 04755, 0) != 0) return Report(false, "fchmodat2");
    }
    struct stat st;
    return Report(stat(argv[2], &st) == 0 && (st.st_mode & S_ISUID) != 0, "the bit");
  }
  if (what == "unix_pair") {
    // A connected pair that reaches nothing outside: must keep working in the sandbox.
    int sv[2];
    bool ok = socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && write(sv[0], "x", 1) == 1;
    char c = 0;
    return Report(ok && read(sv[1], &c, 1) == 1 && c == 'x', "socketpair");
  }
  if ((what == "unix_high" || what == "dgram_pair" || what == "raw_pair") && argc == 3) {
    // unix_high: a stream socket whose family has high bits set (the kernel reads an int), then
    // connect to PATH. dgram_pair: a datagram socketpair, then sendto PATH.
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", argv[2]);
    if (what == "unix_high") {
      long fd = syscall(SYS_socket, 0x100000000L | AF_UNIX, SOCK_STREAM, 0);
      if (fd < 0) return Report(false, "socket");
      return Report(connect(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0,
                    "connect");
    }
    int sv[2];
    // (SOCK_RAW: the kernel makes it a datagram socket in this family.)
    if (socketpair(AF_UNIX, what == "raw_pair" ? SOCK_RAW : SOCK_DGRAM, 0, sv) != 0)
      return Report(false, "socketpair");
    return Report(sendto(sv[0], "x", 1, 0, reinterpret_cast<sockaddr*>(&a), sizeof a) == 1,
                  "sendto");
  }
  if (what == "unix_own" && argc == 3) {
    // A socket of the command's own: listen at PATH, then connect to it.
    unlink(argv[2]);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", argv[2]);
    int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (server < 0) return Report(false, "socket");
    if (bind(server, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(server, 1) != 0)
      return Report(false, "bind");
    int client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = client >= 0 && connect(client, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    unlink(argv[2]);
    return Report(ok, "connect");
  }
  if (what == "userns_unshare") return Report(unshare(CLONE_NEWUSER) == 0, "unshare");
  if (what == "userns_clone" || what == "userns_clone3") {
    // A child in a user namespace of its own, by clone or clone3; it exits at once.
    long pid;
    if (what == "userns_clone") {
      pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, 0);
    } else {
      clone_args args{};
      args.flags = CLONE_NEWUSER;
      args.exit_signal = SIGCHLD;
      pid = syscall(SYS_clone3, &args, sizeof args);
    }
    if (pid == 0) _exit(0);
    if (pid < 0) return Report(false, what == "userns_clone" ? "clone" : "clone3");
    int status;
    waitpid(static_cast<pid_t>(pid), &status, 0);
    return Report(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child");
  }
  if (what == "unshare_mount") {
    // A private mount namespace, then a mount: what an escape would do to undo a read-only bind.
    // An ordinary user needs a user namespace of its own for that.
    int flags = CLONE_NEWNS | (geteuid() == 0 ? 0 : CLONE_NEWUSER);
    if (unshare(flags) != 0) return Report(false, "unshare");
    return Report(mount("none", "/tmp", "tmpfs", 0, nullptr) == 0, "mount");
  }
  return 2;
}
