// How long after a file or folder last changed its stamp (inode, size, mtime,
// ctime) is trusted to show any further change. A change in the same tick of
// the file system's clock as the one before can leave mtime and ctime as they
// were (git calls such files racily clean): whatever changed this recently is
// read again until it has settled. Seconds, for file systems with coarse clocks.
export const SETTLED_MS = 3000;
