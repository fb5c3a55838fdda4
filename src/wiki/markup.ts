// Text written into markup by hand (the feeds' XML, a chart's SVG), where names come from content.

/** `text` safe as XML's or HTML's content or quoted attribute value: its five special characters as entities. */
export const escapeXml = (text: string): string =>
  text.replace(/[<>&'"]/g, (char) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', "'": 'apos', '"': 'quot' }[char]};`);
