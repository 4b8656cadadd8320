package mailbox

import (
	"fmt"
	"testing"
	"time"

	"github.com/paneteam/paneteam/internal/encoding/jsonx"
)

func BenchmarkDecode20000(b *testing.B) {
	msgs := make([]Message, 20000)
	for i := range msgs {
		msgs[i] = Message{From: "bob", Text: fmt.Sprintf("message %d with some text to make it realistic, about a line long", i), Timestamp: Timestamp(time.Now()), Read: true}
	}
	data, _ := Encode(msgs)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDrain compares a send's write (one queued message in) on the
// inbox's bytes with the decoding path, for an inbox of 1000 unread
// messages and one of 20,000 read ones (which that write archives).
func BenchmarkDrain(b *testing.B) {
	queued := []Message{{From: "alice", Text: "new", Timestamp: Timestamp(time.Now())}}
	for _, c := range []struct {
		name string
		n    int
		read bool
	}{{"1000-unread", 1000, false}, {"20000-read", 20000, true}} {
		msgs := make([]Message, c.n)
		for i := range msgs {
			msgs[i] = Message{From: "bob", Text: fmt.Sprintf("message %d with some text to make it realistic, about a line long", i), Timestamp: Timestamp(time.Now()), Read: c.read}
		}
		data, _ := Encode(msgs)
		b.Run(c.name+"/splice", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, _, ok, err := spliceDrain(data, queued); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				cur, err := decode(data)
				if err != nil {
					b.Fatal(err)
				}
				var keep []Message
				for _, m := range append(cur, queued...) {
					if m.Read {
						if _, err := jsonx.Marshal(m); err != nil {
							b.Fatal(err)
						}
						continue
					}
					keep = append(keep, m)
				}
				if _, err := Encode(keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
