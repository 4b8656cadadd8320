package mailbox

import (
	"fmt"
	"testing"
	"time"
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
