package report

import (
	"html"
	"html/template"
	"strings"
)

// code renders text with `backquoted` spans as <code>, escaping the rest,
// so that captions can name commands and columns as the docs do.
func code(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 && i < len(parts)-1 {
			b.WriteString("<code>" + html.EscapeString(p) + "</code>")
			continue
		}
		if i%2 == 1 {
			b.WriteString("`") // an unmatched backquote stays as it was
		}
		b.WriteString(html.EscapeString(p))
	}
	return template.HTML(b.String())
}

// pageTemplate is the report page. It loads nothing: styles are inline,
// plots are inline SVG, and there is no script, so the file opens the same
// offline, from a mail attachment or from a CI artefact.
const pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="schedlab report">
<title>{{.Title}}</title>
<style>
:root { color-scheme: light; }
body { margin: 0; background: #f7f7f8; color: #1f2328;
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header, main, footer { max-width: 1080px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 1.5em; }
h1 { font-size: 1.75em; margin: 0 0 .15em; }
h2 { font-size: 1.35em; margin: 2.2em 0 .6em; padding-bottom: .25em; border-bottom: 2px solid #d8dee4; }
h3 { font-size: 1.1em; margin: 1.8em 0 .4em; }
h3 code { font-size: 1em; }
.sub { margin: 0 0 1em; color: #59636e; }
nav { background: #fff; border: 1px solid #d8dee4; border-radius: 6px; padding: .5em 1.2em; font-size: .92em; }
nav ol { margin: .3em 0; padding-left: 1.4em; }
nav ol ol { list-style: none; padding-left: .8em; color: #59636e; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
p { max-width: 60em; }
.note { max-width: 60em; background: #fff8e1; border-left: 4px solid #d4a72c; padding: .6em 1em; border-radius: 0 4px 4px 0; }
.scroll { overflow-x: auto; margin: 0 0 1.2em; }
table { border-collapse: collapse; background: #fff; font-size: .82em; border: 1px solid #d8dee4; }
.tcap { margin: 1.2em 0 .3em; color: #59636e; font-size: .88em; font-style: italic; }
th, td { padding: .28em .65em; border-bottom: 1px solid #eaeef2; white-space: nowrap; text-align: left; }
th { background: #f0f3f6; font-weight: 600; white-space: normal; vertical-align: bottom; }
.n { text-align: right; font-variant-numeric: tabular-nums; }
td.hash { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .95em; white-space: normal; word-break: break-all; min-width: 18em; }
td.wrap { white-space: normal; word-break: break-word; min-width: 18em; }
tr.base td { background: #eaf3fc; }
.swatch { display: inline-block; width: .8em; height: .8em; margin-right: .4em; border-radius: 2px; vertical-align: -.05em; }
figure { margin: 1.2em 0; padding: 12px 12px 8px; background: #fff; border: 1px solid #d8dee4; border-radius: 6px; }
figure svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figcaption { margin-top: .5em; font-size: .88em; color: #3d444d; max-width: 60em; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; background: #eff1f3; padding: 0 .25em; border-radius: 3px; }
footer { padding-top: 2em; padding-bottom: 3em; color: #59636e; font-size: .85em; }
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
<nav aria-label="Contents"><ol>
{{- range .Sections}}
<li><a href="#{{.ID}}">{{.Title}}</a>
{{- $figs := false}}{{range .Blocks}}{{if .Figure}}{{$figs = true}}{{end}}{{end}}
{{- if $figs}}<ol>{{range .Blocks}}{{if .Figure}}<li><a href="#{{.Figure.ID}}">Figure {{.Number}}. {{.Figure.Title}}</a></li>{{end}}{{end}}</ol>{{end}}</li>
{{- end}}
</ol></nav>
</header>
<main>
{{- range .Sections}}
<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{- range .Blocks}}
{{- if .Heading}}
<h3><code>{{.Heading}}</code></h3>
{{- else if .Para}}
<p>{{code .Para}}</p>
{{- else if .Note}}
<p class="note">{{code .Note}}</p>
{{- else if .Table}}
<p class="tcap">{{code .Table.Caption}}</p>
<div class="scroll"><table>
<thead><tr>{{$cls := .Table.Class}}{{range $i, $h := .Table.Head}}<th{{with index $cls $i}} class="{{.}}"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Table.Rows}}{{$sw := .Swatch}}
<tr{{if .Mark}} class="base"{{end}}>{{range $i, $c := .Cells}}<td{{with index $cls $i}} class="{{.}}"{{end}}>{{if and (eq $i 0) $sw}}<span class="swatch" style="{{$sw}}"></span>{{end}}{{$c}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{- else if .Figure}}
<figure id="{{.Figure.ID}}">
{{.Figure.SVG}}
<figcaption><strong>Figure {{.Number}}. {{.Figure.Title}}.</strong> {{code .Figure.Caption}}</figcaption>
</figure>
{{- end}}
{{- end}}
</section>
{{- end}}
</main>
<footer>{{.Footer}}</footer>
</body>
</html>
`
