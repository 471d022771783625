/** What the shell takes from "My work": its header link. */
export { MyWorkLink } from './MyWorkLink';
