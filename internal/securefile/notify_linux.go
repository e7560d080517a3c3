//go:build linux

package securefile

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The events that change what a snapshot or an appender's check depends
// on. A file's own watch sees a write through any of its names (a hard
// link in another directory); a directory's watch sees its entries come
// and go and their attributes change, and itself chmod-ed, deleted or
// moved. An appended file's watch (the audit log) leaves out the content
// events: our own appends would raise one per line. Every mask is added
// to the inode's (IN_MASK_ADD), never put in its place: the kernel keeps
// one watch per inode, and a file reached by two paths (a hard link) or
// both read and appended to must keep the events of each use.
const (
	contentMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE
	appendMask  = unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_MASK_ADD
	fileMask    = contentMask | appendMask
	dirMask     = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ATTRIB |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_MASK_ADD
)

// maskOf is the inotify mask of a watch of kind.
func maskOf(kind watchKind) uint32 {
	switch kind {
	case watchDir:
		return dirMask
	case watchAppend:
		return appendMask
	default:
		return fileMask
	}
}

// localFS lists the file systems whose inotify reports every change:
// local ones, changed only through this kernel. NFS, CIFS, FUSE and
// overlayfs (whose layers may change underneath), and anything unknown,
// are checked with stats.
var localFS = map[int64]bool{
	unix.EXT4_SUPER_MAGIC:  true, // ext2, ext3, ext4
	unix.XFS_SUPER_MAGIC:   true,
	unix.BTRFS_SUPER_MAGIC: true,
	unix.TMPFS_MAGIC:       true,
	unix.F2FS_SUPER_MAGIC:  true,
	unix.RAMFS_MAGIC:       true,
}

// localFileSystem reports whether path is on a file system of localFS.
func localFileSystem(path string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return false
	}
	return localFS[int64(st.Type)]
}

// inotifyKernel is one inotify descriptor, and an epoll set holding it and
// /proc/self/mountinfo (which reports EPOLLPRI when this process's mount
// table changes: a file system mounted over a watched directory raises no
// inotify event).
type inotifyKernel struct {
	ifd, efd, mfd int
	evs           [2]unix.EpollEvent
	buf           [16 << 10]byte
}

func openPlatformKernel() (kernel, error) {
	k := &inotifyKernel{ifd: -1, efd: -1, mfd: -1}
	var err error
	if k.ifd, err = unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC); err != nil {
		return nil, err
	}
	if k.efd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		k.close()
		return nil, err
	}
	if k.mfd, err = unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
		k.close() // no way to see mounts: rely on stats
		return nil, err
	}
	if err = unix.EpollCtl(k.efd, unix.EPOLL_CTL_ADD, k.ifd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(k.ifd)}); err == nil {
		err = unix.EpollCtl(k.efd, unix.EPOLL_CTL_ADD, k.mfd, &unix.EpollEvent{Events: unix.EPOLLPRI, Fd: int32(k.mfd)})
	}
	if err != nil {
		k.close()
		return nil, err
	}
	return k, nil
}

func (k *inotifyKernel) add(path string, kind watchKind) (int32, error) {
	wd, err := unix.InotifyAddWatch(k.ifd, path, maskOf(kind))
	if errors.Is(err, unix.ENOENT) {
		return -1, errMissing
	}
	if err != nil {
		return -1, err
	}
	if !reliableFS(path) {
		k.rm(int32(wd))
		return -1, errors.New("not a local file system")
	}
	return int32(wd), nil
}

func (k *inotifyKernel) rm(wd int32) { _, _ = unix.InotifyRmWatch(k.ifd, uint32(wd)) }

func (k *inotifyKernel) ready() (events, mounts bool, err error) {
	for {
		n, err := unix.EpollWait(k.efd, k.evs[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, false, err
		}
		for _, e := range k.evs[:n] {
			switch int(e.Fd) {
			case k.ifd:
				events = true
			case k.mfd:
				mounts = true
			}
		}
		return events, mounts, nil
	}
}

func (k *inotifyKernel) drain(f func(wd int32, name []byte, content, gone bool)) error {
	for {
		n, err := unix.Read(k.ifd, k.buf[:])
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			return nil
		}
		if err != nil {
			return err
		}
		if n < unix.SizeofInotifyEvent {
			return errors.New("inotify: short read")
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&k.buf[off]))
			end := off + unix.SizeofInotifyEvent + int(ev.Len)
			if end > n {
				return errors.New("inotify: truncated event")
			}
			name := k.buf[off+unix.SizeofInotifyEvent : end]
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				f(-1, nil, false, false)
			default:
				f(ev.Wd, name, isContent(ev.Mask), ev.Mask&unix.IN_IGNORED != 0)
			}
			off = end
		}
	}
}

func (k *inotifyKernel) close() {
	for _, fd := range []int{k.mfd, k.efd, k.ifd} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	k.ifd, k.efd, k.mfd = -1, -1, -1
}

// isContent reports whether an event's mask is only a change of content
// (a write, a close after a write): what a watchAppend Stamp ignores.
func isContent(mask uint32) bool {
	return mask&contentMask != 0 && mask&^(contentMask|unix.IN_ISDIR) == 0
}
