// A Markdown document of docs/ shown inside a wiki page (the API page shows docs/api-contract.md):
// its own title dropped, its headings one level down with their ids prefixed (so they sit below
// the page's headings and never clash with its ids), and its tables given what every table of
// the wiki has: a caption (the heading the table stands under, after a prefix that keeps its name
// apart from the page's own sections), header cells with a scope, and a
// scrolling frame for narrow screens. A link to another page of docs/ becomes its text: the wiki
// does not serve docs/.

/** The HTML Astro compiled from the Markdown, ready to sit inside a page under an <h2>. */
export function embedMarkdown(html: string, idPrefix: string, captionPrefix: string): string {
  let heading = '';
  let tables = 0;
  return (
    html
      .replace(/<h1[^>]*>[\s\S]*?<\/h1>/, '')
      .replace(/<(\/?)h([2-5])/g, (_, slash: string, level: string) => `<${slash}h${Number(level) + 1}`)
      .replace(/ id="([^"]+)"/g, ` id="${idPrefix}$1"`)
      .replace(/ href="#([^"]+)"/g, ` href="#${idPrefix}$1"`)
      // Another page of docs/ is no page of the wiki: its name stays, as text.
      .replace(/<a href="[^":#]+\.md(?:#[^"]*)?">([\s\S]*?)<\/a>/g, '$1')
      .replace(
        /<h[3-6][^>]*>([\s\S]*?)<\/h[3-6]>|<table>([\s\S]*?)<\/table>/g,
        (match, title?: string, body?: string) => {
          if (title !== undefined) {
            heading = title;
            return match;
          }
          const captionId = `${idPrefix}table-${++tables}`;
          const cells = (body ?? '').replace(/<th>/g, '<th scope="col">');
          return (
            `<div class="table-scroll" role="region" aria-labelledby="${captionId}" tabindex="0">` +
            `<table><caption id="${captionId}">${captionPrefix}${heading}</caption>${cells}</table></div>`
          );
        },
      )
  );
}
