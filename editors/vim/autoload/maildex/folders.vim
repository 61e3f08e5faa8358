" SPDX-License-Identifier: GPL-3.0-or-later
" Where sent mail (Fcc) and drafts are filed. The folder the user names (g:maildex_fcc,
" g:maildex_drafts), else the one the mail root already has, spelt as the sync tool made it: mbsync's
" `Sent` or `[Gmail]/Sent Mail`, Maildir++'s `.Sent`, offlineimap's `INBOX.Sent`, found among the
" folders (directories with a cur/) under the config's database.mail_root. A folder the user names
" is spelt as the disk has it too (`sent` files into an existing `Sent`). Only when there is none,
" a new `Sent` or `Drafts`, the names IMAP servers give them: never a lowercase folder of our own.
" Reads directories only; runs no command.
let s:cpo_save = &cpo
set cpo&vim

" Names a folder's last part may have (after `/`, or `.` in Maildir++), best first.
let s:names = {'sent': ['sent', 'sent mail', 'sent items', 'sent messages'], 'drafts': ['drafts', 'draft']}
let s:new = {'sent': 'Sent', 'drafts': 'Drafts'}
let s:tags = {'sent': ['+sent', '-unread', '-inbox'], 'drafts': ['+draft', '-unread', '-inbox']}
let s:setting = {'sent': 'maildex_fcc', 'drafts': 'maildex_drafts'}
" How deep under the mail root folders are looked for (`[Gmail]/Sent Mail` is 2, `a/b/Sent` 3).
let s:depth = 3

" Where a message of KIND ('sent' or 'drafts') is filed, for CONFIG (`config list` as
" maildex#config#with gives it): {'argv': the `maildex insert` that files it, 'folder': FOLDER};
" {} when the user's setting says to file nothing; {'error': WHY} when the mail root is unknown
" (`config list` failed) and no setting names the folder.
function! maildex#folders#insert(kind, config) abort
  let l:name = s:setting[a:kind]
  let l:root = get(a:config, 'database.mail_root', get(a:config, 'database.path', ''))
  if exists('g:' . l:name)
    " "FOLDER +tag -tag", or a list when the folder's name has spaces; '' or [] files nothing
    let l:value = get(g:, l:name)
    let l:words = type(l:value) == type([]) ? copy(l:value) : split(l:value)
    if empty(l:words)
      return {}
    endif
    let [l:folder, l:tags] = [maildex#folders#on_disk(l:root, l:words[0]), l:words[1:]]
  elseif l:root ==# ''
    return {'error': 'the mail root is not known (maildex config list failed: :MaildexErrors) and g:'
          \ . l:name . ' names no folder'}
  else
    let [l:folder, l:tags] = [maildex#folders#find(l:root, a:kind), s:tags[a:kind]]
  endif
  return {'argv': ['insert', '--create-folder', '--folder=' . l:folder] + l:tags, 'folder': l:folder}
endfunction

" FOLDER (relative to ROOT) as the disk spells it: when no folder of that exact name exists, each
" part of its path is matched without regard to case (`sent` is mbsync's `Sent`, `[gmail]/sent mail`
" Gmail's `[Gmail]/Sent Mail`); as given when the disk has no such folder in any case.
function! maildex#folders#on_disk(root, folder) abort
  if a:root ==# '' || isdirectory(a:root . '/' . a:folder)
    return a:folder
  endif
  let l:path = ''
  for l:part in split(a:folder, '/')
    let l:dir = l:path ==# '' ? a:root : a:root . '/' . l:path
    let l:same = filter(s:readdir(l:dir), 'tolower(v:val) ==# tolower(l:part) && isdirectory(l:dir . "/" . v:val)')
    if empty(l:same)
      return a:folder
    endif
    let l:path = l:path ==# '' ? l:same[0] : l:path . '/' . l:same[0]
  endfor
  return l:path
endfunction

" The folder of KIND under ROOT, relative to it. Of those with one of the names: first those at
" most two deep (`Sent`, `[Gmail]/Sent Mail`, `INBOX/Sent`), among them one spelt with capitals as
" IMAP servers name it before an all-lowercase one (a `sent/` that notmuch.el or an older maildex.vim
" made beside the synced `[Gmail]/Sent Mail`); then the least deep (`Sent Messages` rather than
" `Archive/Sent`), the best name, the shortest path.
function! maildex#folders#find(root, kind) abort
  let l:best = ''
  let l:rank = [1, 1, 99, 99, 0]
  for l:folder in s:maildirs(a:root)
    let l:parts = split(substitute(l:folder, '^\.', '', ''), '[/.]')
    let l:name = index(s:names[a:kind], tolower(l:parts[-1]))
    let l:rank_here = [len(l:parts) > 2, l:parts[-1] ==# tolower(l:parts[-1]), len(l:parts), l:name, len(l:folder)]
    if l:name >= 0 && s:before(l:rank_here, l:rank)
      let [l:best, l:rank] = [l:folder, l:rank_here]
    endif
  endfor
  return l:best !=# '' ? l:best : s:new[a:kind]
endfunction

" Whether list A sorts before list B, element by element.
function! s:before(a, b) abort
  for l:i in range(len(a:a))
    if a:a[l:i] != a:b[l:i]
      return a:a[l:i] < a:b[l:i]
    endif
  endfor
  return 0
endfunction

function! s:maildirs(root) abort
  let l:found = []
  if a:root !=# '' && isdirectory(a:root)
    call s:walk(a:root, '', s:depth, l:found)
  endif
  return l:found
endfunction

function! s:readdir(dir) abort
  try
    return readdir(a:dir)
  catch
    return []
  endtry
endfunction

function! s:walk(root, rel, depth, found) abort
  for l:name in s:readdir(a:rel ==# '' ? a:root : a:root . '/' . a:rel)
    if index(['cur', 'new', 'tmp', '.maildex', '.notmuch'], l:name) >= 0
      continue
    endif
    let l:rel = a:rel ==# '' ? l:name : a:rel . '/' . l:name
    if isdirectory(a:root . '/' . l:rel . '/cur')
      call add(a:found, l:rel)
    endif
    if a:depth > 1 && isdirectory(a:root . '/' . l:rel)
      call s:walk(a:root, l:rel, a:depth - 1, a:found)
    endif
  endfor
endfunction

let &cpo = s:cpo_save
unlet s:cpo_save
