package plugin

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/nodeslo/nodeslo-controller/internal/sloconfig"
)

// Input limits. The plugin reads files a person points it at, so a wrong
// path (/dev/zero, a disk image) must end in a clear error, not in a machine
// out of memory.
const (
	// MaxConfigMapFileBytes bounds the -f file. The apiserver refuses a
	// ConfigMap whose data and binaryData exceed 1 MiB; 3 MiB leaves room
	// for the rest: YAML indentation or JSON escaping of the values (a
	// JSON document escaped into a JSON string grows by about a quarter),
	// base64 of binaryData (a third), a last-applied-configuration
	// annotation repeating the data (annotations are capped at 256 KiB),
	// and a few other objects when the file is an install manifest.
	MaxConfigMapFileBytes = 3 << 20
	// MaxNodesFileBytes bounds the --nodes file. Nodes are read one at a
	// time and only their names, labels and annotations are kept, so memory
	// does not grow with this limit; time does (about 10 s per 100 MB). 512
	// MiB holds `kubectl get nodes -o yaml` of 100,000 nodes with their
	// kubelet status (about 3.5 KB a node: 340 MB) with room to spare.
	MaxNodesFileBytes = 512 << 20
	// maxItemBytes bounds one Node (or one document of the nodes file other
	// than a List): a real Node is a few kilobytes.
	maxItemBytes = 16 << 20
)

// maxEchoBytes caps any value the plugin repeats back in a message.
const maxEchoBytes = 100

// clip returns s, or its first maxEchoBytes bytes and how long it was.
func clip(s string) string { return sloconfig.Truncate(s, maxEchoBytes) }

// errTooLarge reports input over its limit.
type errTooLarge struct {
	what  string
	limit int64
}

func (e errTooLarge) Error() string {
	return fmt.Sprintf("%s is larger than %d MiB: refusing to read it", e.what, e.limit>>20)
}

// checkedReader passes through at most limit bytes of r, failing beyond
// them (it reads at most limit+1), and fails at the first byte that is not
// UTF-8, giving its offset: YAML and JSON are UTF-8, and a UTF-16 file,
// recognised by its byte-order mark, is told so. It never repeats the bytes
// it rejects.
type checkedReader struct {
	r      io.Reader
	what   string
	limit  int64
	offset int64  // bytes passed through so far
	line   int64  // 1-based line at offset
	carry  []byte // a character cut by the end of the last read
	err    error
}

func newCheckedReader(r io.Reader, what string, limit int64) *checkedReader {
	return &checkedReader{r: r, what: what, limit: limit, line: 1}
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if len(p) < utf8.UTFMax {
		return 0, io.ErrShortBuffer
	}
	n := copy(p, c.carry)
	c.carry = c.carry[:0]
	room := min(int64(len(p)), int64(n)+c.limit+1-c.offset)
	m, err := c.r.Read(p[n:room])
	n += m
	if c.offset+int64(n) > c.limit {
		return c.fail(errTooLarge{what: c.what, limit: c.limit})
	}
	if c.offset == 0 && (bytes.HasPrefix(p[:n], []byte{0xFF, 0xFE}) || bytes.HasPrefix(p[:n], []byte{0xFE, 0xFF})) {
		return c.fail(fmt.Errorf("%s is UTF-16 (it starts with a UTF-16 byte-order mark): save it as UTF-8", c.what))
	}
	good := n
	if i := firstInvalid(p[:n]); i >= 0 {
		if utf8.FullRune(p[i:n]) || err != nil {
			return c.fail(fmt.Errorf("%s is not UTF-8: the byte at offset %d (line %d) is 0x%02X; save the file as UTF-8",
				c.what, c.offset+int64(i), c.line+int64(bytes.Count(p[:i], []byte{'\n'})), p[i]))
		}
		good = i // a character cut by the end of the buffer: wait for its end
	}
	c.carry = append(c.carry, p[good:n]...)
	c.line += int64(bytes.Count(p[:good], []byte{'\n'}))
	c.offset += int64(good)
	return good, err
}

func (c *checkedReader) fail(err error) (int, error) {
	c.err = err
	return 0, err
}

// firstInvalid returns the offset of the first byte of b that does not
// start a valid UTF-8 character, or -1.
func firstInvalid(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
