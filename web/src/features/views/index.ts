/** What other features use of saved views: the "Views" menu a page with filters in its address shows. */
export { ViewsMenu, type ViewsMenuProps } from './ViewsMenu';
