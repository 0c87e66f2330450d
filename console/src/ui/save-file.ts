/**
 * Offers a downloaded file to the browser as a download (the file a person gets is what the service
 * sent): an object URL on a `download` link, clicked, then let go. No navigation, nothing inline, so
 * the page's Content-Security-Policy has nothing to refuse.
 */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click's task is over; a minute is plenty.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
