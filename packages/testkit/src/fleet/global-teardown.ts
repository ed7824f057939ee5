import { teardown } from "./global-setup";

export default teardown;
