package content

import (
	"bytes"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

// Inputs built by the tests rather than stored: pages in legacy charsets
// (encoded from UTF-8 source text with golang.org/x/text), a small PDF and
// pathological HTML.

const shiftJISPageUTF8 = `<!DOCTYPE html>
<html lang="ja"><head><meta charset="Shift_JIS"><title>東京の天気予報</title></head>
<body>
<nav><a href="/">ホーム</a> | <a href="/news">ニュース</a></nav>
<h1>東京の天気予報</h1>
<p>今日は晴れのち曇り、最高気温は十八度の見込みです。夕方からは北風が強まり、夜には雨が降る可能性があります。</p>
<p>明日は朝から雨が降り、昼過ぎには雷を伴う強い雨となる所もあるでしょう。外出の際は傘をお持ちください。</p>
<table><tr><th>曜日</th><th>天気</th><th>最高</th><th>最低</th></tr>
<tr><td>月</td><td>晴れ</td><td>18</td><td>9</td></tr>
<tr><td>火</td><td>雨</td><td>14</td><td>10</td></tr></table>
<p><a href="詳細.html">詳しい予報</a>は気象庁の資料に基づいています。</p>
</body></html>
`

const windows1252PageUTF8 = `<!DOCTYPE html>
<html lang="fr"><head><title>Café crème — «recette»</title></head>
<body>
<h1>Le café crème</h1>
<p>Préparez un espresso, puis ajoutez du lait chauffé à 65 °C. Le résultat coûte environ 3,50 € au comptoir.</p>
<ul><li>Café : 18 g</li><li>Lait entier : 120 ml</li><li>Sucre : à volonté</li></ul>
<p>“Naïve” façon, dit le maître-barista. Œuvre déjà célèbre.</p>
</body></html>
`

func mustEncode(t testing.TB, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding test page: %v", err)
	}
	return b
}

func shiftJISPage(t testing.TB) []byte { return mustEncode(t, japanese.ShiftJIS, shiftJISPageUTF8) }
func windows1252Page(t testing.TB) []byte {
	return mustEncode(t, charmap.Windows1252, windows1252PageUTF8)
}

// nestedDivs is n nested <div>s around a paragraph, then closed.
func nestedDivs(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html><html><head><title>deep</title></head><body><p>before the pit</p>")
	for range n {
		b.WriteString("<div>")
	}
	b.WriteString("<p>at the bottom</p>")
	for range n {
		b.WriteString("</div>")
	}
	b.WriteString("<p>after the pit</p></body></html>")
	return b.Bytes()
}
