import { useQuery } from '@tanstack/react-query';
import {
  Button,
  Header,
  Menu,
  MenuItem,
  MenuSection,
  MenuTrigger,
  Popover,
  Separator,
} from 'react-aria-components';
import { projectsQuery } from '../../api/queries';

/** Jumps between the projects one can see (the one one is in is named by its navigation bar). */
export function ProjectSwitcher() {
  const projects = useQuery(projectsQuery).data ?? [];
  const active = projects.filter((p) => !p.archivedAt);

  return (
    <MenuTrigger>
      <Button className="switcher-button">
        {/* Visible text stays part of the name (WCAG 2.5.3); the purpose is said to screen readers. */}
        <span className="visually-hidden">Switch project: </span>
        {/* In a project, the project's bar under this one names it. */}
        <span className="switcher-title">Projects</span>
        <span className="chevron" aria-hidden="true" />
      </Button>
      <Popover className="popover" placement="bottom start">
        <Menu className="menu" aria-label="Projects">
          <MenuSection>
            <Header className="menu-header menu-header-small">Active projects</Header>
            {active.length === 0 ? (
              <MenuItem className="menu-item" isDisabled id="none">
                No active projects
              </MenuItem>
            ) : (
              active.map((p) => (
                <MenuItem
                  key={p.id}
                  id={p.id}
                  className="menu-item"
                  href={`/project/${p.code}`}
                  textValue={p.title}
                >
                  <span className="project-code">{p.code}</span> {p.title}
                </MenuItem>
              ))
            )}
          </MenuSection>
          <Separator className="menu-separator" />
          <MenuItem id="all" className="menu-item" href="/">
            All projects
          </MenuItem>
        </Menu>
      </Popover>
    </MenuTrigger>
  );
}
