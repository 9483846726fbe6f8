package loader

import (
	"os"
	"syscall"
	"time"
)

// stampOf stats path; the stamp is not valid when stat fails.
func stampOf(path string) fileStamp {
	taken := time.Now().UnixNano()
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{
		valid: true, dev: st.Dev, ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), taken: taken,
	}
}
