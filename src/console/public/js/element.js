// Builds DOM nodes without ever parsing text as HTML: every string from the API becomes a text node or an attribute value.

/** Only links inside the console or to this origin's own paths; anything else (javascript:, data:) becomes inert. */
function safeHref(value) {
  const href = String(value);
  return href.startsWith('#') || /^\/(?!\/)/.test(href) ? href : '#';
}

/**
 * el('a', { href: '#/x', class: 'y', on: { click } }, 'text', child). Attribute names come from this code only;
 * values and children may be anything, they are never interpreted as markup.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = String(value);
    else if (key === 'on') for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (key === 'dataset') for (const [name, data] of Object.entries(value)) node.dataset[name] = String(data);
    else if (key === 'href') node.setAttribute('href', safeHref(value));
    else if (key === 'value') node.value = String(value);
    else if (key === 'checked') node.checked = Boolean(value);
    else if (/^on/i.test(key)) throw new Error(`event handlers go in props.on, not ${key}`);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  appendChildren(node, children);
  return node;
}

/** Strings become text nodes (Node.append never parses HTML); null, undefined and false are skipped. */
export function appendChildren(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function replaceContent(node, ...children) {
  node.replaceChildren();
  return appendChildren(node, children);
}
